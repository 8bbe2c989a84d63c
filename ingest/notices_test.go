package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
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
	dbtest.AwaitVersion(t, events, func(v notices.StateVersion) bool { return v.Live })
	in := NewIngester(store)
	seen := map[string]bool{}
	for _, rec := range fixtureRecords(t, "fuzzed-transactions-1") {
		before := events.Version()
		if _, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatal(err)
		}
		moved := func(v notices.StateVersion) bool {
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

// A subscriber that follows the notice log sees every fork as such: applying the block notices
// (canonical or not) and the reorg notices (blocks rolled back and restored) in order gives each
// block the canonical flag the database ends with. Replayed in batches and one message at a
// time, the log tells the same story.
func TestNoticesTellEveryReorg(t *testing.T) {
	for _, name := range []string{"mainnet-reorg-scenario1", "mainnet-reorg-scenario2"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			batched, _ := replayFixture(t, name)
			oneByOne := newStore(t)
			in := NewIngester(oneByOne)
			for _, rec := range fixtureRecords(t, name) {
				if _, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
					t.Fatal(err)
				}
			}
			for _, store := range []*db.Store{batched, oneByOne} {
				view, reorgs := followedCanonical(t, store)
				if reorgs == 0 {
					t.Fatal("no reorg notice in a fixture with a reorg")
				}
				var blocks []db.Block
				if err := store.DB.NewSelect().Model(&blocks).Column("index_block_hash", "block_height", "canonical").Scan(ctx); err != nil {
					t.Fatal(err)
				}
				for _, b := range blocks {
					if got, ok := view[string(b.IndexBlockHash)]; !ok || got != b.Canonical {
						t.Errorf("block %x at height %d: the notices say canonical %v (announced %v), the chain %v",
							b.IndexBlockHash, b.BlockHeight, got, ok, b.Canonical)
					}
				}
			}
		})
	}
}

// followedCanonical reads the notice log as a subscriber would: each block's canonical flag as
// the notices leave it, and how many reorgs they told.
func followedCanonical(t *testing.T, store *db.Store) (map[string]bool, int) {
	t.Helper()
	var logged []notices.Notice
	if err := notices.EachAfter(context.Background(), store.DB, 0, 0, func(n notices.Notice) bool {
		logged = append(logged, n)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	view, reorgs := map[string]bool{}, 0
	for _, n := range logged {
		switch n.Kind {
		case notices.KindBlock:
			view[string(n.IndexBlockHash)] = n.Canonical
		case notices.KindReorg:
			reorgs++
			for _, b := range n.RolledBack {
				view[string(b.IndexBlockHash)] = false
			}
			for _, b := range n.Restored {
				view[string(b.IndexBlockHash)] = true
			}
		}
	}
	return view, reorgs
}
