package db_test

import (
	"bytes"
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// The microblocks of a block's height as the block reads list them: one state per microblock,
// whichever anchor blocks confirmed or orphaned it (the reference API keeps one row per
// microblock). Parent P has children X (orphaned, confirmed m0 and m1) and Y (canonical, arrived
// off the chain, confirmed nothing); parent Q has children Z (canonical, confirmed n0, orphaned
// n1) and W (orphaned, confirmed n0 and n1); the tip T has an unconfirmed microblock u0.
func TestMicroblockStateAcrossForks(t *testing.T) {
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	h := blockHash
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := store.DB.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	block := func(hash, parent string, height int, canonical bool) {
		insertBlock(t, store, hash, parent, height, canonical)
	}
	microblock := func(hash, parent, anchor string, seq int, canonical, microCanonical bool) {
		a := []byte{}
		if anchor != "" {
			a = h(anchor)
		}
		exec(`INSERT INTO microblocks (microblock_hash, microblock_sequence, microblock_parent_hash, parent_index_block_hash,
			index_block_hash, block_height, parent_block_height, parent_block_hash, parent_burn_block_hash,
			parent_burn_block_height, parent_burn_block_time, canonical, microblock_canonical)
			VALUES (?, ?, '', ?, ?, 0, 0, '', '', 0, 0, ?, ?)`, h(hash), seq, h(parent), a, canonical, microCanonical)
	}
	tx := func(id, mb, anchor string, canonical bool) {
		exec(`INSERT INTO txs (tx_id, index_block_hash, microblock_hash, raw_tx, tx_index, type_id, status, raw_result,
			canonical, microblock_canonical, microblock_sequence, block_hash, block_height, parent_index_block_hash,
			parent_block_hash, burn_block_height, burn_block_time, parent_burn_block_time, nonce, fee_rate, sender_address,
			sponsored, anchor_mode, post_condition_mode)
			VALUES (?, ?, ?, '', 0, 0, 0, '', ?, true, 0, '', 2, '', '', 0, 0, 0, 0, 0, 'SP1', false, 0, 0)`,
			h(id), h(anchor), h(mb), canonical)
	}
	block("P", "G", 1, true)
	block("X", "P", 2, false)
	block("Y", "P", 2, true)
	microblock("m0", "P", "X", 0, false, true)
	microblock("m1", "P", "X", 1, false, true)
	block("Q", "Y", 3, true)
	block("Z", "Q", 4, true)
	block("W", "Q", 4, false)
	microblock("n0", "Q", "Z", 0, true, true)
	microblock("n1", "Q", "Z", 1, true, false)
	microblock("n0", "Q", "W", 0, false, true)
	microblock("n1", "Q", "W", 1, false, true)
	tx("t0", "n0", "Z", true)
	tx("t0", "n0", "W", false)
	tx("t1", "n0", "Z", true)
	tx("t2", "n1", "W", false)
	block("T", "Z", 5, true)
	microblock("u0", "T", "", 0, true, true)

	key := func(s ...string) []string {
		out := make([]string, len(s))
		for i, x := range s {
			out[i] = string(h(x))
		}
		return out
	}
	contents, err := store.ContentsOfBlocks(ctx, key("X", "Y", "Z", "W", "T", "P", "Q"))
	if err != nil {
		t.Fatal(err)
	}
	name := func(b []byte) string { return string(bytes.TrimRight(b, "\x00")) }
	accepted, streamed, ids := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for i, c := range contents {
		if asked := []string{"X", "Y", "Z", "W", "T", "P", "Q"}[i]; name(c.IndexBlockHash) != asked {
			t.Fatalf("contents %d are of block %q, want %q", i, name(c.IndexBlockHash), asked)
		}
		if c.TxIDs == nil || c.Accepted == nil || c.Streamed == nil {
			t.Errorf("block %q: a part is nil, not an empty list: %+v", name(c.IndexBlockHash), c)
		}
		for _, id := range c.TxIDs {
			ids[name(c.IndexBlockHash)] = append(ids[name(c.IndexBlockHash)], name(id))
		}
		for _, m := range c.Accepted {
			accepted[name(c.IndexBlockHash)] = append(accepted[name(c.IndexBlockHash)], name(m.Hash)+":"+string(rune('0'+m.TxCount)))
		}
		for _, m := range c.Streamed {
			streamed[name(c.IndexBlockHash)] = append(streamed[name(c.IndexBlockHash)], name(m))
		}
	}
	want := map[string][]string{
		// m0 and m1: only the orphaned X confirmed them, and the canonical Y did not.
		"Z": {"n0:2"}, "W": {"n0:2"}, // n1: orphaned by the canonical Z; counts are of canonical rows
	}
	if !equalLists(accepted, want) {
		t.Errorf("accepted microblocks = %v, want %v", accepted, want)
	}
	want = map[string][]string{"Q": {"n0"}, "T": {"u0"}}
	if !equalLists(streamed, want) {
		t.Errorf("streamed microblocks = %v, want %v", streamed, want)
	}
	// Only Z's rows of t0 and t1 are canonical (same position: either order).
	slices.Sort(ids["Z"])
	if want := map[string][]string{"Z": {"t0", "t1"}}; !equalLists(ids, want) {
		t.Errorf("transaction ids = %v, want %v", ids, want)
	}

	// Some blocks' burn blocks are stored (one of them off the canonical burn chain), the
	// others' are not.
	for i, n := range []string{"P", "Y", "Z"} {
		exec(`INSERT INTO burn_blocks (burn_block_hash, burn_block_height, burn_amount, consensus_hash, parent_burn_block_hash, canonical)
			VALUES (?, ?, ?, ?, '', ?)`, h("burn"+n), i+1, 1000*(i+1), h("consensus"+n), n != "Z")
	}

	// A block looked up with extras is the block looked up without, with the contents
	// ContentsOfBlocks reads of it and the burn block BurnBlockByHash reads, whichever fork it
	// is on.
	names := []string{"P", "X", "Y", "Q", "Z", "W", "T", "none"}
	var hashes, burnHashes [][]byte
	for _, n := range names {
		hashes, burnHashes = append(hashes, h(n)), append(burnHashes, h("burn"+n))
	}
	blockReadsAgree(t, store, []int32{1, 2, 3, 4, 5, 6}, store.BlockByHeightWith)
	blockReadsAgree(t, store, hashes, store.BlockByHashWith)
	blockReadsAgree(t, store, burnHashes, store.BlockByBurnBlockHashWith)

	// So is a page of blocks read with extras, block by block.
	for _, page := range []struct{ limit, offset int }{{20, 0}, {2, 0}, {2, 1}, {2, 3}, {1, 4}, {2, 5}} {
		blockReadsAgree(t, store, []int{0}, func(ctx context.Context, _ int, x db.BlockExtras) ([]*db.BlockRead, error) {
			return store.BlocksWith(ctx, page.limit, page.offset, x)
		})
	}
	var burnRead int
	for _, x := range allBlockExtras {
		reads, err := store.BlocksWith(ctx, 20, 0, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reads {
			if r.BurnBlock != nil {
				burnRead++
			}
		}
	}
	if burnRead != 2*3 {
		t.Errorf("%d burn blocks read with the canonical blocks, want those of P, Y and Z with each set of extras that reads them", burnRead)
	}
}

// allBlockExtras are every set of extras a read of blocks may read.
var allBlockExtras = []db.BlockExtras{{}, {Contents: true}, {BurnBlock: true}, {Contents: true, BurnBlock: true}}

// blockReadsAgree checks that each read of blocks by key gives, with every set of extras, the
// blocks it gives without, and exactly the extras asked for: the contents ContentsOfBlocks reads
// and the burn block BurnBlockByHash reads (nil when not stored).
func blockReadsAgree[K any, R *db.BlockRead | []*db.BlockRead](t *testing.T, store *db.Store, keys []K, read func(context.Context, K, db.BlockExtras) (R, error)) {
	t.Helper()
	ctx := context.Background()
	list := func(k K, x db.BlockExtras) []*db.BlockRead {
		t.Helper()
		r, err := read(ctx, k, x)
		if err != nil {
			t.Fatal(err)
		}
		switch r := any(r).(type) {
		case *db.BlockRead:
			if r == nil {
				return nil
			}
			return []*db.BlockRead{r}
		case []*db.BlockRead:
			return r
		}
		panic("unreachable")
	}
	for _, k := range keys {
		alone := list(k, db.BlockExtras{})
		for _, x := range allBlockExtras {
			got := list(k, x)
			if len(got) != len(alone) {
				t.Fatalf("%v with %+v: %d blocks, %d without extras", k, x, len(got), len(alone))
			}
			for i, r := range got {
				if !reflect.DeepEqual(r.Block, alone[i].Block) || r.Extras != x {
					t.Errorf("%v with %+v: block %+v (extras %+v), without extras %+v", k, x, r.Block, r.Extras, alone[i].Block)
				}
				var wantContents *db.BlockContents
				if x.Contents {
					c, err := store.ContentsOfBlocks(ctx, []string{string(r.IndexBlockHash)})
					if err != nil {
						t.Fatal(err)
					}
					wantContents = c[0]
				}
				if !reflect.DeepEqual(r.Contents, wantContents) {
					t.Errorf("%v with %+v: contents %+v, want %+v", k, x, r.Contents, wantContents)
				}
				var wantBurn *db.BurnBlock
				if x.BurnBlock {
					b, err := store.BurnBlockByHash(ctx, r.BurnBlockHash)
					if err != nil {
						t.Fatal(err)
					}
					wantBurn = b
				}
				if !reflect.DeepEqual(r.BurnBlock, wantBurn) {
					t.Errorf("%v with %+v: burn block %+v, want %+v", k, x, r.BurnBlock, wantBurn)
				}
			}
		}
	}
}

// at is element i of s, or nil past its end.
func at[T any](s []*T, i int) *T {
	if i < len(s) {
		return s[i]
	}
	return nil
}

func equalLists(a, b map[string][]string) bool { return maps.EqualFunc(a, b, slices.Equal) }
