package db_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A page of canonical blocks at any offset holds the blocks at those places of the canonical
// chain counted from its tip, orphaned blocks at the same heights left out, and reads only the
// rows it returns: its cost does not grow with the offset, however long the chain.
func TestCanonicalBlockPagesAtEveryOffset(t *testing.T) {
	ctx := context.Background()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	const tip, limit = 60, 20
	insert := func(height int, canonical bool) {
		t.Helper()
		hash := fmt.Appendf(nil, "%-32s", fmt.Sprint(height, canonical))
		if _, err := store.DB.ExecContext(ctx, `INSERT INTO blocks (index_block_hash, block_hash, block_height,
			parent_index_block_hash, parent_block_hash, parent_microblock_hash, parent_microblock_sequence, burn_block_hash,
			burn_block_height, burn_block_time, block_time, miner_txid, canonical)
			VALUES (?, ?, ?, '', '', '', 0, ?, ?, 1, 1, '', ?)`, hash, hash, height, hash, height, canonical); err != nil {
			t.Fatal(err)
		}
	}
	for h := 1; h <= tip; h++ {
		insert(h, true)
		if h >= 30 && h <= 35 { // a fork the chain left
			insert(h, false)
		}
	}
	for _, offset := range []int{0, 1, 25, 45, tip - 1, tip, tip + 7} {
		t.Run(fmt.Sprint("offset ", offset), func(t *testing.T) {
			var want []int32
			for h := tip - offset; h >= 1 && len(want) < limit; h-- {
				want = append(want, int32(h))
			}
			blocks, err := store.Blocks(ctx, limit, offset)
			if err != nil {
				t.Fatal(err)
			}
			var got []int32
			for _, b := range blocks {
				if !b.Canonical {
					t.Errorf("orphaned block at height %d listed", b.BlockHeight)
				}
				got = append(got, b.BlockHeight)
			}
			if !slices.Equal(got, want) {
				t.Errorf("heights %v, want %v", got, want)
			}
		})
	}

	// A deep page, explained as it ran.
	var mu sync.Mutex
	var ran []db.Statement
	store.Observe(func(_ context.Context, st db.Statement) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, st)
	})
	if _, err := store.Blocks(ctx, limit, 45); err != nil {
		t.Fatal(err)
	}
	store.Observe(func(context.Context, db.Statement) {})
	mu.Lock()
	stmts := ran
	mu.Unlock()
	if len(stmts) != 1 {
		t.Fatalf("a page of blocks ran %d statements, want one", len(stmts))
	}
	st := stmts[0]
	// Sequential scans off, as the planner sees a chain too long to scan.
	var js string
	if err := store.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		return tx.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+st.Text()).Scan(ctx, &js)
	}); err != nil {
		t.Fatal(err)
	}
	plan, _, err := dbtest.ParsePlan(js)
	if err != nil {
		t.Fatal(err)
	}
	plan.Walk(func(n *dbtest.PlanNode) {
		if rows := n.Touched(); rows > limit+1 {
			t.Errorf("%s on %q touches %.0f rows for a page of %d at offset 45:\n%s", n.NodeType, n.Relation, rows, limit, js)
		}
	})
}
