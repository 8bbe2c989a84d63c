package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// The pages whose unconfirmed microblock rows come first read by position alone at a tip that
// streams no microblocks: one statement, without the unconfirmed part (u). At a tip that streams
// one, the positions' statement says so and the whole statement runs after it.
func TestPositionPagesReadTheUnconfirmedPartOnlyWhileTheTipStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, streams := range []bool{false, true} {
		opts := chaingen.Options{Seed: 3, Blocks: 11, TxsPerBlock: 4, Accounts: 6}
		if streams {
			opts.MicroblockEvery, opts.MicroblockTxs = 4, 3 // the last block's microblock stays unconfirmed
		}
		g, err := chaingen.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		store := dbtest.New(t)
		t.Cleanup(func() { store.Close() })
		if _, err := bench.Replay(ctx, store, g, nil); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var ran []string
		store.Observe(func(_ context.Context, st db.Statement) {
			mu.Lock()
			ran = append(ran, st.Query)
			mu.Unlock()
		})
		p := g.Busy()
		reads := []struct {
			name string
			read func() error
		}{
			{"events", func() error {
				_, err := store.Events(ctx, db.EventFilter{Principal: p, Types: db.AllEventTypes, Limit: 20})
				return err
			}},
			{"v2 transactions", func() error { _, err := store.SummaryTxPage(ctx, p, 20, 0); return err }},
			{"unanchored transactions_with_transfers", func() error {
				_, err := store.PrincipalTxPage(ctx, p, db.PrincipalTxQuery{Unanchored: true, Limit: 20})
				return err
			}},
		}
		for _, r := range reads {
			mu.Lock()
			ran = nil
			mu.Unlock()
			if err := r.read(); err != nil {
				t.Fatalf("%s: %v", r.name, err)
			}
			mu.Lock()
			want := 1
			if streams {
				want = 2
			}
			if len(ran) != want {
				t.Errorf("%s, tip streams %v: %d statements, want %d", r.name, streams, len(ran), want)
			} else if last := ran[len(ran)-1]; strings.Contains(last, "u AS MATERIALIZED") != streams {
				t.Errorf("%s, tip streams %v: the last statement reads the unconfirmed part: %v", r.name, streams, !streams)
			}
			mu.Unlock()
		}
	}
}
