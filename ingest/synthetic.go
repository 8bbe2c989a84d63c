package ingest

import (
	"encoding/json"
	"log/slog"
	"math/big"

	btcaddress "github.com/stxgraph/stxgraph/bitcoin/address"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Bitcoin-originated operations (transfer-stx, stack-stx, delegate-stx sent on Bitcoin) reach
// the observer with raw_tx "0x00". Like the reference, stxgraph rebuilds an unsigned
// transaction from the block's events: origin = the account the operation spends from, nonce
// and fee 0, P2PKH, anchor mode any, post-condition mode allow.

// burnchainOp is the node's description of a Bitcoin-originated stack-stx (pox-4 era).
type burnchainOp struct {
	StackStx *struct {
		StackedUstx     decimal  `json:"stacked_ustx"`
		BurnBlockHeight decimal  `json:"burn_block_height"`
		NumCycles       decimal  `json:"num_cycles"`
		SignerKey       hexBytes `json:"signer_key"`
		RewardAddr      string   `json:"reward_addr"`
		MaxAmount       decimal  `json:"max_amount"`
		AuthID          decimal  `json:"auth_id"`
	} `json:"stack_stx"`
}

// synthesize rebuilds the transaction of a Bitcoin-originated operation and returns it with
// the sender address its events name. It returns nil when the operation left no events (the
// reference skips such transactions).
func synthesize(m *txMessage, evs []eventMessage, burnHeight int32) (*tx.Transaction, string, error) {
	var lock, print *eventMessage
	for i := range evs {
		e := &evs[i]
		switch {
		case e.StxTransferEvent != nil:
			return syntheticTransfer(e.StxTransferEvent)
		case e.StxLockEvent != nil && lock == nil:
			lock = e
		case e.ContractEvent != nil && print == nil:
			if p := parsePoxPrint(e.ContractEvent.ContractIdentifier, e.ContractEvent.Topic, e.ContractEvent.RawValue); p != nil {
				print = e
			}
		}
	}
	switch {
	case lock != nil:
		return syntheticStackStx(m, lock, print, burnHeight)
	case print != nil:
		p := parsePoxPrint(print.ContractEvent.ContractIdentifier, print.ContractEvent.Topic, print.ContractEvent.RawValue)
		if p.name() == "delegate-stx" {
			return syntheticDelegateStx(print, p)
		}
	case len(evs) == 0:
		slog.Warn("skipping Bitcoin-originated transaction without events", "tx_id", db.Hex(m.TxID))
		return nil, "", nil
	}
	return nil, "", malformed("Bitcoin-originated transaction with events of no known operation")
}

func syntheticTransfer(e *assetEvent) (*tx.Transaction, string, error) {
	if e.Sender == nil || e.Recipient == nil {
		return nil, "", malformed("stx_transfer_event without sender or recipient")
	}
	sender, err := c32.ParsePrincipal(*e.Sender)
	if err != nil {
		return nil, "", malformed("transfer sender: %v", err)
	}
	recipient, err := c32.ParsePrincipal(*e.Recipient)
	if err != nil {
		return nil, "", malformed("transfer recipient: %v", err)
	}
	amount, ok := new(big.Int).SetString(e.Amount.orZero(), 10)
	if !ok || !amount.IsUint64() {
		return nil, "", malformed("transfer amount %q out of range", e.Amount)
	}
	return syntheticTx(sender.Address, &tx.TokenTransfer{Recipient: recipient, Amount: amount.Uint64()}), *e.Sender, nil
}

// syntheticStackStx rebuilds a stack-stx call from the lock event and the transaction result
// (ok (tuple (lock-amount u..) (stacker ..) (unlock-burn-height u..))).
func syntheticStackStx(m *txMessage, lock, print *eventMessage, burnHeight int32) (*tx.Transaction, string, error) {
	l := lock.StxLockEvent
	stacker, err := c32.ParsePrincipal(l.LockedAddress)
	if err != nil {
		return nil, "", malformed("locked_address: %v", err)
	}
	result, err := clarity.DecodeHex(db.Hex(m.RawResult))
	if err != nil {
		return nil, "", malformed("raw_result: %v", err)
	}
	resp, ok := result.(clarity.Response)
	fields := tupleMap(resp.Value)
	if !ok || !resp.Ok || fields == nil {
		return nil, "", malformed("stack-stx result is not (ok (tuple ..))")
	}
	poxAddr := poxAddrOf(stacker.Address)
	if print != nil {
		p := parsePoxPrint(print.ContractEvent.ContractIdentifier, print.ContractEvent.Topic, print.ContractEvent.RawValue)
		if a, ok := p.data["pox-addr"].(clarity.Tuple); ok {
			poxAddr = a
		}
	}
	contract := bootContract(stacker.Address.IsMainnet(), poxContractName(l.ContractIdentifier))
	var op burnchainOp
	if !isNull(m.BurnchainOp) {
		if err := json.Unmarshal(m.BurnchainOp, &op); err != nil {
			return nil, "", malformed("burnchain_op: %v", err)
		}
	}
	var args []clarity.Value
	if s := op.StackStx; s != nil {
		if s.RewardAddr != "" {
			a, err := btcaddress.Decode(s.RewardAddr)
			if err != nil {
				return nil, "", malformed("burnchain_op reward_addr: %v", err)
			}
			poxAddr = poxAddrTuple(a.Version, a.Hash)
		}
		args = []clarity.Value{clarityUint(s.StackedUstx), poxAddr, clarityUint(s.BurnBlockHeight), clarityUint(s.NumCycles),
			clarity.NewNone(), clarity.NewBuffer(s.SignerKey), clarityUint(s.MaxAmount), clarityUint(s.AuthID)}
	} else {
		unlock, _ := new(big.Int).SetString(clarityText(fields["unlock-burn-height"]), 10)
		if unlock == nil {
			return nil, "", malformed("stack-stx result has no unlock-burn-height")
		}
		cycle := int64(50)
		if stacker.Address.IsMainnet() {
			cycle = 2100
		}
		period := (unlock.Int64() - int64(burnHeight)) / cycle
		args = []clarity.Value{clarityUint(decimal(numberOrZero(fields["lock-amount"]))), poxAddr,
			clarity.NewUInt64(uint64(burnHeight)), clarity.NewUInt64(uint64(max(period, 0)))}
	}
	call := &tx.ContractCall{Contract: contract, FunctionName: "stack-stx", Args: args}
	return syntheticTx(stacker.Address, call), l.LockedAddress, nil
}

// syntheticDelegateStx rebuilds a delegate-stx call from the PoX print event.
func syntheticDelegateStx(e *eventMessage, p *poxPrint) (*tx.Transaction, string, error) {
	stackerName := clarityText(p.fields["stacker"])
	stacker, err := c32.ParsePrincipal(stackerName)
	if err != nil {
		return nil, "", malformed("delegate-stx stacker: %v", err)
	}
	until := clarity.NewNone()
	if u, ok := p.data["unlock-burn-height"].(clarity.Optional); ok {
		until = u
	}
	poxAddr := clarity.NewNone()
	if a, ok := p.data["pox-addr"].(clarity.Optional); ok {
		poxAddr = a
	}
	delegateTo, ok := p.data["delegate-to"]
	if !ok {
		return nil, "", malformed("delegate-stx print event has no delegate-to")
	}
	args := []clarity.Value{clarityUint(decimal(numberOrZero(p.data["amount-ustx"]))), delegateTo, until, poxAddr}
	contract := bootContract(stacker.Address.IsMainnet(), poxContractName(e.ContractEvent.ContractIdentifier))
	return syntheticTx(stacker.Address, &tx.ContractCall{Contract: contract, FunctionName: "delegate-stx", Args: args}), stackerName, nil
}

func syntheticTx(origin c32.Address, payload tx.Payload) *tx.Transaction {
	t := &tx.Transaction{
		Version: tx.VersionTestnet, ChainID: tx.ChainIDTestnet, Auth: tx.AuthStandard,
		Origin:     tx.SpendingCondition{HashMode: tx.HashP2PKH, Signer: origin.Hash160, KeyEncoding: tx.KeyCompressed},
		AnchorMode: tx.AnchorAny, PostConditionMode: tx.PostConditionAllow, Payload: payload,
	}
	if origin.IsMainnet() {
		t.Version, t.ChainID = tx.VersionMainnet, tx.ChainIDMainnet
	}
	return t
}

func bootContract(mainnet bool, name string) c32.Principal {
	addr := bootAddressTestnet
	if mainnet {
		addr = bootAddressMainnet
	}
	p, _ := c32.ParsePrincipal(addr + "." + name)
	return p
}

// poxAddrOf is the PoX reward address tuple of a Stacks address: its hash160 with the
// Bitcoin hash mode its version stands for (P2PKH or P2SH).
func poxAddrOf(a c32.Address) clarity.Tuple {
	version := btcaddress.P2PKH
	if a.Version == c32.MainnetP2SH || a.Version == c32.TestnetP2SH {
		version = btcaddress.P2SH
	}
	return poxAddrTuple(version, a.Hash160[:])
}

// poxAddrTuple is the pox contracts' (tuple (version (buff 1)) (hashbytes (buff 32))).
func poxAddrTuple(version byte, hash []byte) clarity.Tuple {
	t, _ := clarity.NewTuple(map[string]clarity.Value{
		"version": clarity.NewBuffer([]byte{version}), "hashbytes": clarity.NewBuffer(hash),
	})
	return t
}

// clarityUint is a Clarity uint from a decimal; out-of-range values become u0, which the decimal
// parser has already ruled out for well-formed messages.
func clarityUint(d decimal) clarity.Value {
	n, _ := new(big.Int).SetString(d.orZero(), 10)
	v, err := clarity.NewUInt(n)
	if err != nil {
		return clarity.NewUInt64(0)
	}
	return v
}
