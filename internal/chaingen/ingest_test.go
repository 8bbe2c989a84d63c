package chaingen_test

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// TestIngest applies the chain through the real ingestion path: every message is accepted
// and every account's balance is the one the chain's events and fees give.
func TestIngest(t *testing.T) {
	t.Parallel()
	testIngest(t, smallChain)
}

// Blocks with hundreds of transactions and events, whose rows go to the server as COPY data,
// store the same balances.
func TestIngestLargeBlocks(t *testing.T) {
	t.Parallel()
	testIngest(t, chaingen.Options{Seed: 11, Blocks: 6, TxsPerBlock: 150, Accounts: 12, BusyShare: 0.3, ContractCallsPerBlock: 2})
}

func testIngest(t *testing.T, o chaingen.Options) {
	g, ms := generate(t, o)
	want := verify(t, g, ms)
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	in := ingest.NewIngester(store)
	for i, m := range ms {
		if _, err := in.Apply(ctx, ingest.Message{Path: m.Path, Payload: m.Payload, ReceivedAt: m.ReceivedAt}); err != nil {
			t.Fatalf("message %d (%s): %v", i, m.Path, err)
		}
	}
	var principals []string
	for _, a := range g.Accounts() {
		principals = append(principals, a.Address.String())
	}
	balances, err := store.StxBalances(ctx, principals, db.BalanceAt{})
	if err != nil {
		t.Fatal(err)
	}
	if len(balances) != len(principals) {
		t.Fatalf("read %d balances for %d accounts", len(balances), len(principals))
	}
	for _, b := range balances {
		if want := want.balance[b.Principal]; want == nil || b.Balance != want.String() {
			t.Errorf("%s: stored balance %s, the chain says %s", b.Principal, b.Balance, want)
		}
	}
	tip, err := store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int(tip.BlockHeight) != o.Blocks+1 {
		t.Errorf("chain tip at %d, want %d", tip.BlockHeight, o.Blocks+1)
	}
}
