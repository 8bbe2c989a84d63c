package faucet

import (
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/bitcoin/rpc"
)

// networkName is how messages name the faucet's network.
func (b *BTC) networkName() string {
	if b.params.Net == chaincfg.RegressionNetParams.Net {
		return "regtest"
	}
	return "testnet"
}

// parseAddress accepts the kinds of address a wallet on the faucet's network hands out: base58
// P2PKH and P2SH, bech32 P2WPKH and P2WSH, bech32m P2TR.
func (b *BTC) parseAddress(s string) (address.Address, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "a Bitcoin %s address is required", b.networkName())
	}
	shown := s
	if len(shown) > 100 {
		shown = shown[:100] + "…"
	}
	a, err := address.DecodeAddress(s, b.params)
	if err != nil || !a.IsForNet(b.params) {
		if m, merr := address.DecodeAddress(s, &chaincfg.MainNetParams); merr == nil && m.IsForNet(&chaincfg.MainNetParams) {
			return nil, stxgraph.Errorf(stxgraph.EINVALID, "%q is a mainnet Bitcoin address; the faucet pays %s addresses only", shown, b.networkName())
		}
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "%q is not a valid Bitcoin %s address", shown, b.networkName())
	}
	switch a.(type) {
	case *address.AddressPubKeyHash, *address.AddressScriptHash, *address.AddressWitnessPubKeyHash,
		*address.AddressWitnessScriptHash, *address.AddressTaproot:
		return a, nil
	}
	return nil, stxgraph.Errorf(stxgraph.EINVALID, "%q is not an address the faucet pays to (P2PKH, P2SH, P2WPKH, P2WSH or P2TR)", shown)
}

// Sizes (bytes) for the fee: signatures are counted at their largest DER length plus the
// sighash byte, so the estimate never falls below the signed size.
const (
	sigLen        = 73
	pubKeyLen     = 33
	p2wpkhOutLen  = 22 // OP_0 <20>
	p2pkhSigScrip = 1 + sigLen + 1 + pubKeyLen
)

// vsize is the virtual size of a transaction spending inputs to outputs with these script
// lengths.
func vsize(inputs []rpc.Output, outScriptLens ...int) int64 {
	base := 4 + varIntLen(len(inputs)) + varIntLen(len(outScriptLens)) + 4
	witness, segwit := 0, false
	for _, in := range inputs {
		base += 36 + 4
		if txscript.IsPayToWitnessPubKeyHash(in.PkScript) {
			segwit = true
			base += 1
			witness += 1 + 1 + sigLen + 1 + pubKeyLen
		} else {
			base += varIntLen(p2pkhSigScrip) + p2pkhSigScrip
			witness += 1 // empty witness stack
		}
	}
	for _, l := range outScriptLens {
		base += 8 + varIntLen(l) + l
	}
	weight := base * 4
	if segwit {
		weight += 2 + witness
	}
	return int64((weight + 3) / 4)
}

func varIntLen(n int) int { return wire.VarIntSerializeSize(uint64(n)) }

// selectCoins takes candidates in order until they pay amount plus the fee at rate (sat/vB),
// with a change output unless the change would be dust (then it goes to the fee).
func selectCoins(candidates []rpc.Output, amount, rate int64, toScriptLen int) (inputs []rpc.Output, change int64, ok bool) {
	var sum int64
	for _, c := range candidates {
		inputs = append(inputs, c)
		sum += c.Value
		fee := rate * vsize(inputs, toScriptLen, p2wpkhOutLen)
		if change := sum - amount - fee; change >= dustLimit {
			return inputs, change, true
		}
		if sum-amount >= rate*vsize(inputs, toScriptLen) {
			return inputs, 0, true
		}
	}
	return nil, 0, false
}

// sign builds the payment and signs each input for its kind: legacy sighash for P2PKH,
// BIP 143 witness sighash for P2WPKH. Every input is checked with the script engine.
func (b *BTC) sign(inputs []rpc.Output, toScript, changeScript []byte, change int64) (*wire.MsgTx, error) {
	tx := wire.NewMsgTx(2)
	prevOuts := make(map[wire.OutPoint]*wire.TxOut, len(inputs))
	for _, in := range inputs {
		tx.AddTxIn(wire.NewTxIn(&in.OutPoint, nil, nil))
		prevOuts[in.OutPoint] = wire.NewTxOut(in.Value, in.PkScript)
	}
	tx.AddTxOut(wire.NewTxOut(b.cfg.AmountSats, toScript))
	if change > 0 {
		tx.AddTxOut(wire.NewTxOut(change, changeScript))
	}
	fetcher := txscript.NewMultiPrevOutFetcher(prevOuts)
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for i, in := range inputs {
		switch {
		case txscript.IsPayToWitnessPubKeyHash(in.PkScript):
			w, err := txscript.WitnessSignature(tx, hashes, i, in.Value, in.PkScript, txscript.SigHashAll, b.key, true)
			if err != nil {
				return nil, err
			}
			tx.TxIn[i].Witness = w
		case txscript.IsPayToPubKeyHash(in.PkScript):
			sig, err := txscript.SignatureScript(tx, i, in.PkScript, txscript.SigHashAll, b.key, true)
			if err != nil {
				return nil, err
			}
			tx.TxIn[i].SignatureScript = sig
		default:
			return nil, fmt.Errorf("input %d: unsupported script %x", i, in.PkScript)
		}
	}
	for i, in := range inputs {
		vm, err := txscript.NewEngine(in.PkScript, tx, i, txscript.StandardVerifyFlags, nil, hashes, in.Value, fetcher)
		if err != nil {
			return nil, err
		}
		if err := vm.Execute(); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	return tx, nil
}
