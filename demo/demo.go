// Package demo loads a small generated Stacks chain into an empty database, so that a first
// run of stxgraph has blocks, transactions, events, a fork, pending transactions and a few
// BRC-20 tokens to show.
// The chain goes through the real ingestion path, and the database is marked as a demo
// database: it never takes a real chain afterwards, and a real chain's database never takes
// the demo.
package demo

import (
	"context"
	"fmt"
	"log/slog"

	stxgraph "github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/internal/inscriptionfeed"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Chain is the demo chain: a few hundred testnet blocks of STX transfers and calls of a
// contract that prints an event, microblocks streamed on every tenth block, a competing
// block that ends on a fork, and pending transfers in the mempool.
var Chain = chaingen.Options{
	Seed: 1, Blocks: 300, TxsPerBlock: 4, Accounts: 24, BusyShare: 0.25,
	ContractCallsPerBlock: 1, ForkAt: 150, MempoolTxs: 12, MicroblockEvery: 10, MicroblockTxs: 3,
}

// ChainID is the chain id of the demo chain (testnet).
const ChainID = tx.ChainIDTestnet

// Busy is the demo chain's account with the most history.
func Busy() string {
	g, err := chaingen.New(Chain)
	if err != nil {
		panic(err) // Chain is valid: TestChainOptions
	}
	return g.Busy()
}

// Summary says what a database's demo chain holds.
type Summary struct {
	Blocks, Txs, Microblocks, ForkBlocks, MempoolTxs int64
	// Busy is the account with the most history; Contract the contract the calls target.
	Busy, Contract string
	// Loaded is false when the chain was already there.
	Loaded bool
}

// Load loads the chain opts describe into store, once. chainID is the chain id the server
// runs with: the demo is a testnet chain and never goes into a mainnet database. A database
// that holds a chain it did not load is refused; one that holds the demo already is left as it
// is. A load that stopped half-way resumes: every message is applied at most once.
func Load(ctx context.Context, store *db.Store, chainID uint32, opts chaingen.Options) (Summary, error) {
	if opts.Mainnet || chainID == tx.ChainIDMainnet {
		return Summary{}, stxgraph.Errorf(stxgraph.EFORBIDDEN, "the demo chain is never loaded on mainnet (chain id 0x%08x)", tx.ChainIDMainnet)
	}
	if chainID != ChainID {
		return Summary{}, stxgraph.Errorf(stxgraph.EINVALID, "the demo chain is a testnet chain (chain id 0x%08x), not 0x%08x", ChainID, chainID)
	}
	g, err := chaingen.New(opts)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Busy: g.Busy(), Contract: g.ContractID()}
	mark, err := store.DemoChain(ctx)
	if err != nil {
		return sum, err
	}
	switch {
	case mark != nil && mark.Generator != opts.Key():
		return sum, stxgraph.Errorf(stxgraph.EFORBIDDEN, "the database holds another demo chain (%s); drop it to load this one", mark.Generator)
	case mark != nil && mark.Complete:
		sum.Blocks, sum.Txs = int64(mark.Blocks), int64(mark.Txs)
		return sum, nil
	case mark == nil:
		holds, err := store.HoldsChain(ctx)
		if err != nil {
			return sum, err
		}
		if holds {
			return sum, stxgraph.Errorf(stxgraph.EFORBIDDEN, "the database already holds a chain: the demo chain is loaded into an empty database only (e.g. one named stxgraph_demo)")
		}
		// Marked before the first block, so that an observer never sees the demo unmarked.
		if err := store.MarkDemoChain(ctx, &db.DemoChain{ChainID: int64(ChainID), Generator: opts.Key()}); err != nil {
			return sum, err
		}
	}
	in := ingest.NewIngester(store)
	var id int64
	err = g.Each(func(m chaingen.Message) error {
		id++
		msgID := id
		_, err := in.Apply(ctx, ingest.Message{Path: m.Path, Payload: m.Payload, ReceivedAt: m.ReceivedAt,
			ID: &msgID})
		if err != nil {
			return fmt.Errorf("demo chain message %d (%s): %w", id, m.Path, err)
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	// A short BRC-20 history (the inscription feed's sample: a few tokens, mints and transfers),
	// so that the BRC-20 reads have tokens to show. Replayed safely if an earlier load stopped.
	for _, b := range inscriptionfeed.Sample() {
		if err := inscriptionfeed.Apply(ctx, store, b.Payload()); err != nil {
			return sum, fmt.Errorf("demo BRC-20 history: %w", err)
		}
	}
	st := g.Stats()
	sum.Blocks, sum.Txs, sum.Microblocks, sum.ForkBlocks, sum.MempoolTxs, sum.Loaded = st.Blocks, st.Txs, st.Microblocks,
		st.ForkBlocks, st.MempoolTxs, true
	err = store.MarkDemoChain(ctx, &db.DemoChain{ChainID: int64(ChainID), Generator: opts.Key(),
		Blocks: int(st.Blocks), Txs: int(st.Txs), Complete: true})
	if err == nil {
		slog.Debug("demo chain loaded", "messages", id)
	}
	return sum, err
}
