package rpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// CoinbaseMaturity is the number of confirmations a coinbase output needs before it can be spent
// (consensus: the spending block must be 100 blocks above it).
const CoinbaseMaturity = 100

// Output is an unspent transaction output.
type Output struct {
	OutPoint      wire.OutPoint
	Value         int64 // satoshis
	PkScript      []byte
	Confirmations int64 // 0 while in the mempool
	Coinbase      bool
}

// OutputFinder lists the unspent outputs paying to some addresses, leaving out those an
// unconfirmed transaction already spends.
type OutputFinder interface {
	Unspent(ctx context.Context, addrs []address.Address) ([]Output, error)
}

// Spendable returns the outputs of addrs that a transaction broadcast now can spend: confirmed,
// coinbase ones mature, and not spent by a block or by a transaction in the mempool.
func (c *Client) Spendable(ctx context.Context, addrs []address.Address) ([]Output, error) {
	outs, err := c.outputs.Unspent(ctx, addrs)
	if err != nil {
		return nil, err
	}
	spendable := outs[:0]
	for _, o := range outs {
		if o.Confirmations < 1 || o.Coinbase && o.Confirmations < CoinbaseMaturity {
			continue
		}
		spendable = append(spendable, o)
	}
	return spendable, nil
}

func satoshis(btc float64) int64 { return int64(math.Round(btc * 1e8)) }

// btcdOutputs finds outputs through btcd's address index (--addrindex, which needs --txindex):
// searchrawtransactions lists every transaction touching an address, mined or in the mempool,
// and gettxout confirms that each output left unspent by those is still unspent.
type btcdOutputs struct{ c *Client }

// searchPage is how many transactions one searchrawtransactions call returns.
const searchPage = 1000

func (b btcdOutputs) Unspent(ctx context.Context, addrs []address.Address) ([]Output, error) {
	h := addressHistory{seen: map[wire.OutPoint]bool{}, spent: map[wire.OutPoint]bool{}}
	for _, a := range addrs {
		script, err := txscript.PayToAddrScript(a)
		if err != nil {
			return nil, err
		}
		for skip := 0; ; skip += searchPage {
			var txs []btcjson.SearchRawTransactionsResult
			// address, verbose, skip, count, vinextra, reverse
			err := b.c.call(ctx, &txs, "searchrawtransactions", a.EncodeAddress(), 1, skip, searchPage, 0, false)
			if rerr, ok := IsRPCError(err); ok && rerr.Code == btcjson.ErrRPCNoTxInfo {
				break // the address has no transactions (yet)
			}
			if err != nil {
				return nil, err
			}
			for _, tx := range txs {
				if err := h.add(tx, script); err != nil {
					return nil, fmt.Errorf("searchrawtransactions: %w", err)
				}
			}
			if len(txs) < searchPage {
				break
			}
		}
	}
	var outs []Output
	for _, op := range h.candidates {
		if h.spent[op] {
			continue
		}
		o, ok, err := b.c.txOut(ctx, op)
		if err != nil {
			return nil, err
		}
		if ok {
			outs = append(outs, o)
		}
	}
	return outs, nil
}

// addressHistory gathers what the addresses' transactions tell: the outputs paying them, each
// once in order of appearance, and every outpoint spent.
type addressHistory struct {
	candidates  []wire.OutPoint
	seen, spent map[wire.OutPoint]bool
}

// add records one transaction of the address paid by script.
func (h *addressHistory) add(tx btcjson.SearchRawTransactionsResult, script []byte) error {
	hash, err := chainhash.NewHashFromStr(tx.Txid)
	if err != nil {
		return err
	}
	for _, in := range tx.Vin {
		if in.IsCoinBase() {
			continue
		}
		prev, err := chainhash.NewHashFromStr(in.Txid)
		if err != nil {
			return err
		}
		h.spent[wire.OutPoint{Hash: *prev, Index: in.Vout}] = true
	}
	for _, out := range tx.Vout {
		pk, err := hex.DecodeString(out.ScriptPubKey.Hex)
		if err != nil || !bytes.Equal(pk, script) {
			continue
		}
		op := wire.OutPoint{Hash: *hash, Index: out.N}
		if !h.seen[op] {
			h.seen[op] = true
			h.candidates = append(h.candidates, op)
		}
	}
	return nil
}

// txOut asks the node whether op is unspent, counting the mempool: an output that an unconfirmed
// transaction spends is reported as spent (ok false).
func (c *Client) txOut(ctx context.Context, op wire.OutPoint) (Output, bool, error) {
	var res *btcjson.GetTxOutResult
	err := c.call(ctx, &res, "gettxout", op.Hash.String(), op.Index, true)
	if err != nil || res == nil {
		return Output{}, false, err
	}
	pk, err := hex.DecodeString(res.ScriptPubKey.Hex)
	if err != nil {
		return Output{}, false, fmt.Errorf("gettxout: %w", err)
	}
	return Output{OutPoint: op, Value: satoshis(res.Value), PkScript: pk, Confirmations: res.Confirmations, Coinbase: res.Coinbase}, true, nil
}

// bitcoindOutputs finds outputs with scantxoutset, which reads the UTXO set of the chain tip
// (no index needed), then drops those that the mempool spends. A scan takes seconds to minutes
// on a public testnet and bitcoind runs one at a time, so its result is kept until the tip
// changes; the mempool check runs on every call.
type bitcoindOutputs struct {
	c     *Client
	mu    sync.Mutex // one scan at a time
	tip   string
	key   string
	cache []Output
}

type scanResult struct {
	Success  bool  `json:"success"`
	Height   int64 `json:"height"`
	Unspents []struct {
		Txid         string  `json:"txid"`
		Vout         uint32  `json:"vout"`
		ScriptPubKey string  `json:"scriptPubKey"`
		Amount       float64 `json:"amount"`
		Coinbase     *bool   `json:"coinbase"` // bitcoind 25 and later
		Height       int64   `json:"height"`
	} `json:"unspents"`
}

// scanInProgress is bitcoind's answer while another scantxoutset runs (RPC_INVALID_PARAMETER).
const scanInProgress = -8

func (b *bitcoindOutputs) Unspent(ctx context.Context, addrs []address.Address) ([]Output, error) {
	outs, err := b.scan(ctx, addrs)
	if err != nil {
		return nil, err
	}
	return b.dropMempoolSpent(ctx, outs)
}

// startScan runs scantxoutset over descs, waiting while another client's scan runs (bounded by
// ctx and about two minutes).
func (b *bitcoindOutputs) startScan(ctx context.Context, descs []map[string]string) (scanResult, error) {
	var res scanResult
	for attempt := 0; ; attempt++ {
		err := b.c.call(ctx, &res, "scantxoutset", "start", descs)
		if rerr, ok := IsRPCError(err); ok && rerr.Code == scanInProgress && attempt < 240 {
			select {
			case <-time.After(500 * time.Millisecond):
				continue
			case <-ctx.Done():
				return res, ctx.Err()
			}
		}
		if err != nil {
			return res, err
		}
		if !res.Success {
			return res, fmt.Errorf("scantxoutset did not complete")
		}
		return res, nil
	}
}

// scan returns the confirmed outputs of addrs, from the cache while the tip is the same.
func (b *bitcoindOutputs) scan(ctx context.Context, addrs []address.Address) ([]Output, error) {
	descs := make([]map[string]string, len(addrs))
	names := make([]string, len(addrs))
	for i, a := range addrs {
		names[i] = a.EncodeAddress()
		descs[i] = map[string]string{"desc": "addr(" + names[i] + ")"}
	}
	key := strings.Join(names, ",")
	b.mu.Lock()
	defer b.mu.Unlock()
	var tip string
	if err := b.c.call(ctx, &tip, "getbestblockhash"); err != nil {
		return nil, err
	}
	if tip == b.tip && key == b.key {
		return append([]Output(nil), b.cache...), nil
	}
	res, err := b.startScan(ctx, descs)
	if err != nil {
		return nil, err
	}
	outs := make([]Output, 0, len(res.Unspents))
	for _, u := range res.Unspents {
		hash, err := chainhash.NewHashFromStr(u.Txid)
		if err != nil {
			return nil, fmt.Errorf("scantxoutset: %w", err)
		}
		pk, err := hex.DecodeString(u.ScriptPubKey)
		if err != nil {
			return nil, fmt.Errorf("scantxoutset: %w", err)
		}
		outs = append(outs, Output{
			OutPoint:      wire.OutPoint{Hash: *hash, Index: u.Vout},
			Value:         satoshis(u.Amount),
			PkScript:      pk,
			Confirmations: res.Height - u.Height + 1,
			// Without the flag (bitcoind before 25) any output may be a coinbase: treat it as one,
			// so that young outputs wait for maturity rather than fail at broadcast.
			Coinbase: u.Coinbase == nil || *u.Coinbase,
		})
	}
	// The scan may have seen a newer block than tip: keep the result only when it is tip's.
	var after string
	if err := b.c.call(ctx, &after, "getbestblockhash"); err == nil && after == tip {
		b.tip, b.key, b.cache = tip, key, append([]Output(nil), outs...)
	}
	return outs, nil
}

type spendingResult struct {
	Txid         string `json:"txid"`
	Vout         uint32 `json:"vout"`
	SpendingTxid string `json:"spendingtxid"`
}

// dropMempoolSpent removes the outputs that a mempool transaction spends: one
// gettxspendingprevout call (bitcoind 24 and later), else gettxout per output.
func (b *bitcoindOutputs) dropMempoolSpent(ctx context.Context, outs []Output) ([]Output, error) {
	if len(outs) == 0 {
		return outs, nil
	}
	prevouts := make([]map[string]any, len(outs))
	for i, o := range outs {
		prevouts[i] = map[string]any{"txid": o.OutPoint.Hash.String(), "vout": o.OutPoint.Index}
	}
	var spending []spendingResult
	err := b.c.call(ctx, &spending, "gettxspendingprevout", prevouts)
	if rerr, ok := IsRPCError(err); ok && rerr.Code == btcjson.ErrRPCMethodNotFound.Code {
		kept := outs[:0]
		for _, o := range outs {
			if _, ok, err := b.c.txOut(ctx, o.OutPoint); err != nil {
				return nil, err
			} else if ok {
				kept = append(kept, o)
			}
		}
		return kept, nil
	}
	if err != nil {
		return nil, err
	}
	spent := map[wire.OutPoint]bool{}
	for _, s := range spending {
		if s.SpendingTxid == "" {
			continue
		}
		hash, err := chainhash.NewHashFromStr(s.Txid)
		if err != nil {
			return nil, fmt.Errorf("gettxspendingprevout: %w", err)
		}
		spent[wire.OutPoint{Hash: *hash, Index: s.Vout}] = true
	}
	kept := outs[:0]
	for _, o := range outs {
		if !spent[o.OutPoint] {
			kept = append(kept, o)
		}
	}
	return kept, nil
}
