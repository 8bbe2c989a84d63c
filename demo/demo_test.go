package demo_test

import (
	"context"
	"strings"
	"testing"

	stxgraph "github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/demo"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// small is a demo chain of the same shape as demo.Chain, quick to load.
var small = chaingen.Options{Seed: 3, Blocks: 12, TxsPerBlock: 2, Accounts: 6, BusyShare: 0.5,
	ContractCallsPerBlock: 1, ForkAt: 6, MempoolTxs: 3, MicroblockEvery: 4, MicroblockTxs: 2}

func newStore(t *testing.T) *db.Store {
	t.Helper()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	return store
}

// rawMessages counts the messages ingestion has logged.
func rawMessages(t *testing.T, store *db.Store) int64 {
	t.Helper()
	ids, err := store.LastRequestID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// The demo chain goes into an empty database once: blocks, a fork, pending transactions and
// the demo mark; a second load finds it and applies nothing.
func TestLoadOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := newStore(t)
	sum, err := demo.Load(ctx, store, demo.ChainID, small)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Loaded || sum.Blocks != int64(small.Blocks+1) || sum.ForkBlocks != 1 || sum.MempoolTxs != int64(small.MempoolTxs) ||
		sum.Microblocks != 3 {
		t.Fatalf("loaded %+v; want %d blocks, 3 microblocks, one fork block and %d pending transactions", sum, small.Blocks+1, small.MempoolTxs)
	}
	// Block 9 confirms the microblock streamed on block 8: its transactions are counted in it.
	confirming, err := store.BlockByHeight(ctx, 9)
	if err != nil || confirming == nil {
		t.Fatalf("block 9: %v %v", confirming, err)
	}
	anchored := 1 + small.TxsPerBlock + small.ContractCallsPerBlock
	if strings.Trim(db.Hex(confirming.ParentMicroblockHash), "0x") == "" || int(confirming.TxCount) != anchored+small.MicroblockTxs {
		t.Errorf("block 9 confirms microblock %s with %d transactions; want a microblock and %d", db.Hex(confirming.ParentMicroblockHash),
			confirming.TxCount, anchored+small.MicroblockTxs)
	}
	tip, err := store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int(tip.BlockHeight) != small.Blocks+1 {
		t.Errorf("chain tip at %d, want %d", tip.BlockHeight, small.Blocks+1)
	}
	pending, err := store.MempoolCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The orphaned fork block's coinbase goes back to the mempool, as the reference returns
	// every transaction of an orphaned block.
	if want := int64(small.MempoolTxs) + 1; pending != want {
		t.Errorf("%d pending transactions, want %d", pending, want)
	}
	canonical, err := store.BlockByHeight(ctx, int32(small.ForkAt))
	if err != nil || canonical == nil {
		t.Fatalf("block at the fork height: %v %v", canonical, err)
	}
	// The sample BRC-20 history comes with it: ordi, dec2 and äbc (ORDI's deploy repeats ordi).
	var tokens []string
	if err := store.DB.NewRaw("SELECT ticker FROM brc20_tokens ORDER BY ticker").Scan(ctx, &tokens); err != nil || len(tokens) != 3 {
		t.Errorf("BRC-20 tokens %q (%v); want the sample's three", tokens, err)
	}
	mark, err := store.DemoChain(ctx)
	if err != nil || mark == nil || !mark.Complete || mark.Blocks != small.Blocks+1 || mark.ChainID != int64(tx.ChainIDTestnet) {
		t.Fatalf("demo mark %+v (%v); want a complete mark of %d blocks", mark, err, small.Blocks+1)
	}
	logged := rawMessages(t, store)

	again, err := demo.Load(ctx, store, demo.ChainID, small)
	if err != nil {
		t.Fatal(err)
	}
	if again.Loaded || again.Blocks != sum.Blocks {
		t.Errorf("second load: %+v; want the chain found, not loaded", again)
	}
	if n := rawMessages(t, store); n != logged {
		t.Errorf("second load applied messages: %d logged, %d before", n, logged)
	}
	// Another demo chain is not mixed into this one either.
	other := small
	other.Seed++
	if _, err := demo.Load(ctx, store, demo.ChainID, other); stxgraph.ErrorCode(err) != stxgraph.EFORBIDDEN {
		t.Errorf("loading another demo chain over this one: %v; want it refused", err)
	}
}

// Nothing is loaded on mainnet, on another chain id, or into a database that holds a chain.
func TestLoadRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mainnet := small
	mainnet.Mainnet = true
	cases := []struct {
		name    string
		chainID uint32
		opts    chaingen.Options
		fill    bool // the database holds a chain first
		code    string
	}{
		{"mainnet chain id", tx.ChainIDMainnet, small, false, stxgraph.EFORBIDDEN},
		{"mainnet chain", demo.ChainID, mainnet, false, stxgraph.EFORBIDDEN},
		{"other chain id", 0x80000001, small, false, stxgraph.EINVALID},
		{"database with a chain", demo.ChainID, small, true, stxgraph.EFORBIDDEN},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			var before int64
			if c.fill {
				fillChain(t, store)
				before = rawMessages(t, store)
			}
			_, err := demo.Load(ctx, store, c.chainID, c.opts)
			if stxgraph.ErrorCode(err) != c.code {
				t.Fatalf("Load: %v; want a %s error", err, c.code)
			}
			if mark, err := store.DemoChain(ctx); err != nil || mark != nil {
				t.Errorf("demo mark %+v (%v) after a refused load", mark, err)
			}
			holds, err := store.HoldsChain(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if holds != c.fill || rawMessages(t, store) != before {
				t.Errorf("a refused load changed the chain (holds a chain: %v)", holds)
			}
		})
	}
}

// fillChain ingests a (non-demo) chain as a stacks-node would send it.
func fillChain(t *testing.T, store *db.Store) {
	t.Helper()
	g, err := chaingen.New(chaingen.Options{Seed: 99, Blocks: 3, TxsPerBlock: 1, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	in := ingest.NewIngester(store)
	err = g.Each(func(m chaingen.Message) error {
		_, err := in.Apply(context.Background(), ingest.Message{Path: m.Path, Payload: m.Payload, ReceivedAt: m.ReceivedAt, LogRaw: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The demo chain's options are valid and name a busy account.
func TestChainOptions(t *testing.T) {
	if _, err := chaingen.New(demo.Chain); err != nil {
		t.Fatal(err)
	}
	if demo.Chain.Blocks < 200 || demo.Chain.ForkAt == 0 || demo.Chain.MempoolTxs == 0 || demo.Chain.ContractCallsPerBlock == 0 {
		t.Errorf("demo chain %+v lacks a few hundred blocks, contract calls, a fork or pending transactions", demo.Chain)
	}
	if demo.Busy() == "" || demo.Busy()[:2] != "ST" {
		t.Errorf("busy account %q is not a testnet address", demo.Busy())
	}
}
