package chaingen_test

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
)

// TestIngest applies the chain through the real ingestion path: every message is accepted
// and every account's balance is the one the chain's events and fees give.
func TestIngest(t *testing.T) {
	t.Parallel()
	g, ms := generate(t, smallChain)
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
	for _, a := range g.Accounts() {
		addr := a.Address.String()
		b, err := store.StxBalance(ctx, addr, db.BalanceAt{})
		if err != nil {
			t.Fatal(err)
		}
		if b.Balance != want.balance[addr].String() {
			t.Errorf("%s: stored balance %s, the chain says %s", addr, b.Balance, want.balance[addr])
		}
	}
	tip, err := store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int(tip.BlockHeight) != smallChain.Blocks+1 {
		t.Errorf("chain tip at %d, want %d", tip.BlockHeight, smallChain.Blocks+1)
	}
}
