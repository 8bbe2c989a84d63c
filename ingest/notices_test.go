package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Every message that changes what reads answer is announced, and moves the version of the part
// of the chain state it changes: blocks, microblocks and burn blocks the chain's, new and
// dropped mempool transactions the mempool's.
func TestMessagesMoveTheirPartOfTheVersion(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := newStore(t)
	events, err := store.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.AwaitVersion(t, events, func(v db.StateVersion) bool { return v.Live })
	in := NewIngester(store)
	seen := map[string]bool{}
	for _, rec := range fixtureRecords(t, "fuzzed-transactions-1") {
		before := events.Version()
		if _, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatal(err)
		}
		moved := func(v db.StateVersion) bool {
			switch rec.Path {
			case PathNewBlock, PathNewBurnBlock, PathNewMicroblocks:
				return v.Chain > before.Chain
			case PathNewMempoolTx, PathDropMempoolTx:
				return v.Mempool > before.Mempool && v.Chain == before.Chain
			}
			return true
		}
		dbtest.AwaitVersion(t, events, moved)
		seen[rec.Path] = true
	}
	for _, p := range []string{PathNewBlock, PathNewBurnBlock, PathNewMempoolTx, PathDropMempoolTx} {
		if !seen[p] {
			t.Errorf("the fixture has no %s message", p)
		}
	}
}
