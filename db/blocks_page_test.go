package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// blockHash is the 32-byte hash named s.
func blockHash(s string) []byte { return append([]byte(s), make([]byte, 32-len(s))...) }

// insertBlock stores block name, child of parent, at height, anchored in a burn block of its
// own.
func insertBlock(t *testing.T, store *db.Store, name, parent string, height int, canonical bool) {
	t.Helper()
	if _, err := store.DB.ExecContext(context.Background(), `INSERT INTO blocks (index_block_hash, block_hash, block_height,
		parent_index_block_hash, parent_block_hash, parent_microblock_hash, parent_microblock_sequence, burn_block_hash,
		burn_block_height, burn_block_time, block_time, miner_txid, canonical) VALUES (?, ?, ?, ?, '', '', 0, ?, ?, 1, 1, '', ?)`,
		blockHash(name), blockHash(name), height, blockHash(parent), blockHash("burn"+name), height, canonical); err != nil {
		t.Fatal(err)
	}
}

// A page of canonical blocks at any offset holds the blocks at those places of the canonical
// chain counted from its tip (or, in /extended/v2/blocks, from a cursor block, either way),
// orphaned blocks at the same heights left out, and reads only the rows it returns: its cost does
// not grow with the offset, however long the chain.
func TestCanonicalBlockPagesAtEveryOffset(t *testing.T) {
	ctx := context.Background()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	const tip, limit = 60, 20
	name := func(height int, canonical bool) string { return fmt.Sprint(height, canonical) }
	for h := 1; h <= tip; h++ {
		insertBlock(t, store, name(h, true), name(h-1, true), h, true)
		if h >= 30 && h <= 35 { // a fork the chain left
			insertBlock(t, store, name(h, false), name(h-1, h == 30), h, false)
		}
	}
	if _, err := store.DB.ExecContext(ctx, "UPDATE chain_tip SET block_height = ?, index_block_hash = ?", tip, blockHash(name(tip, true))); err != nil {
		t.Fatal(err)
	}
	// from are the heights of the page of limit blocks that starts at height h.
	from := func(h int) []int32 {
		var out []int32
		for ; h >= 1 && h <= tip && len(out) < limit; h-- {
			out = append(out, int32(h))
		}
		return out
	}
	heights := func(t *testing.T, blocks []*db.Block) []int32 {
		var out []int32
		for _, b := range blocks {
			if !b.Canonical {
				t.Errorf("orphaned block at height %d listed", b.BlockHeight)
			}
			out = append(out, b.BlockHeight)
		}
		return out
	}
	// hashAt is the index block hash of the canonical block at height h, nil past either end.
	hashAt := func(h int) []byte {
		if h < 1 || h > tip {
			return nil
		}
		return blockHash(name(h, true))
	}

	for _, offset := range []int{0, 1, 25, 45, tip - 1, tip, tip + 7} {
		t.Run(fmt.Sprint("offset ", offset), func(t *testing.T) {
			reads, err := store.BlocksWith(ctx, limit, offset, db.BlockExtras{})
			if err != nil {
				t.Fatal(err)
			}
			blocks := make([]*db.Block, len(reads))
			for i, r := range reads {
				blocks[i] = r.Block
			}
			if got, want := heights(t, blocks), from(tip-offset); !slices.Equal(got, want) {
				t.Errorf("heights %v, want %v", got, want)
			}
		})
	}
	for _, c := range []struct{ cursor, offset int }{{tip, 0}, {tip, 35}, {20, -25}, {50, 10}, {10, 15}, {50, -20}} {
		t.Run(fmt.Sprintf("cursor at %d, offset %d", c.cursor, c.offset), func(t *testing.T) {
			p, err := store.BlocksFromCursor(ctx, hashAt(c.cursor), c.offset, limit, nil)
			if err != nil {
				t.Fatal(err)
			}
			start := c.cursor - c.offset
			if got, want := heights(t, p.Results), from(start); !slices.Equal(got, want) {
				t.Errorf("heights %v, want %v", got, want)
			}
			if len(p.Results) == 0 {
				return
			}
			if p.Total != tip || !slices.Equal(p.PrevCursor, hashAt(start-limit)) || !slices.Equal(p.NextCursor, hashAt(start+limit)) {
				t.Errorf("total %d, prev %q, next %q; want %d, the blocks at %d and %d", p.Total, p.PrevCursor, p.NextCursor,
					tip, start-limit, start+limit)
			}
		})
	}

	// Deep pages, explained as the server runs them.
	hook := &lastQuery{}
	store.Observe(hook.observe)
	for read, run := range map[string]func() error{
		"v1 at offset 45": func() error { _, err := store.BlocksWith(ctx, limit, 45, db.BlockExtras{}); return err },
		"v1 at offset 45 with the blocks' contents and burn blocks": func() error {
			_, err := store.BlocksWith(ctx, limit, 45, db.BlockExtras{Contents: true, BurnBlock: true})
			return err
		},
		"v2 from the tip at offset 35": func() error {
			_, err := store.BlocksFromCursor(ctx, nil, 35, limit, nil)
			return err
		},
	} {
		hook.ran()
		if err := run(); err != nil {
			t.Fatal(err)
		}
		st, n := hook.ran()
		if n != 1 {
			t.Fatalf("%s: %d statements, want one", read, n)
		}
		_, js, err := dbtest.ExplainAsServed(ctx, store, st)
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := dbtest.ParsePlan(js)
		if err != nil {
			t.Fatal(err)
		}
		plan.Walk(func(n *dbtest.PlanNode) {
			if rows := n.Touched(); rows > limit+1 {
				t.Errorf("%s: %s on %q touches %.0f rows for a page of %d:\n%s", read, n.NodeType, n.Relation, rows, limit, js)
			}
		})
	}
}
