package ingest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// A reward set follows its block through forks: epoch-3-transition announces cycle 13 in block
// 22; a competing branch of two empty blocks (22', 23') orphans it, and the fixture's own
// blocks 23 and 24 bring it back. Replayed to the end, every cycle is canonical once.
func TestPoxCyclesFollowForks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := newStore(t)
	ing := NewIngester(store)
	apply := func(rec *tsv.Record) {
		t.Helper()
		if _, err := ing.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatalf("record %d: %v", rec.ID, err)
		}
	}
	cycle13 := func(canonical bool) int64 {
		return count(t, store, "SELECT count(*) FROM pox_cycles WHERE cycle_number = 13 AND canonical = ?", canonical) +
			count(t, store, "SELECT count(*) FROM pox_signers WHERE cycle_number = 13 AND canonical = ?", canonical)
	}
	recs := fixtureRecords(t, "epoch-3-transition")
	var block22 *tsv.Record
	rest := recs
	for i, rec := range recs {
		apply(rec)
		if rec.Path == PathNewBlock && heightOf(t, rec.Payload) == 22 {
			block22, rest = rec, recs[i+1:]
			break
		}
	}
	if block22 == nil {
		t.Fatal("the fixture has no block 22")
	}
	if got := cycle13(true); got != 4 { // the cycle and its 3 signers
		t.Fatalf("after block 22: %d canonical cycle 13 rows, want 4", got)
	}

	fork22 := emptyFork(t, block22.Payload, 22, "a2", "")
	fork23 := emptyFork(t, block22.Payload, 23, "a3", "a2")
	apply(&tsv.Record{ID: -1, Path: PathNewBlock, Payload: fork22, ReceivedAt: block22.ReceivedAt})
	if got := cycle13(true); got != 4 {
		t.Fatalf("after a competing block 22': %d canonical cycle 13 rows, want 4", got)
	}
	apply(&tsv.Record{ID: -2, Path: PathNewBlock, Payload: fork23, ReceivedAt: block22.ReceivedAt})
	if got, orphaned := cycle13(true), cycle13(false); got != 0 || orphaned != 4 {
		t.Fatalf("after block 23' orphaned block 22: %d canonical and %d orphaned cycle 13 rows, want 0 and 4", got, orphaned)
	}
	if n := count(t, store, "SELECT count(*) FROM pox_cycles WHERE canonical"); n != 2 {
		t.Errorf("%d canonical cycles after the fork, want 2 (11 and 12)", n)
	}
	for _, rec := range rest {
		apply(rec)
	}
	if got, orphaned := cycle13(true), cycle13(false); got != 4 || orphaned != 0 {
		t.Errorf("replayed to the end: %d canonical and %d orphaned cycle 13 rows, want 4 and 0", got, orphaned)
	}
	if n := count(t, store, "SELECT count(*) FROM pox_cycles WHERE canonical"); n != 4 {
		t.Errorf("%d canonical cycles at the end, want 4", n)
	}
}

func heightOf(t *testing.T, payload []byte) int {
	t.Helper()
	var m struct {
		Height int `json:"block_height"`
	}
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	return m.Height
}

// emptyFork is block (a /new_block payload) turned into an empty block at height, with an index
// hash made of tag (two hex digits) and, when parentTag is set, the parent of that tag (else block's parent);
// it announces no reward set.
func emptyFork(t *testing.T, block []byte, height int, tag, parentTag string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(block, &m); err != nil {
		t.Fatal(err)
	}
	hash := func(tag string) string { return "0x" + strings.Repeat(tag, 32) }
	m["block_height"] = height
	m["index_block_hash"] = hash(tag)
	m["block_hash"] = hash(tag)
	if parentTag != "" {
		m["parent_index_block_hash"] = hash(parentTag)
		m["parent_block_hash"] = hash(parentTag)
	}
	m["transactions"], m["events"], m["matured_miner_rewards"] = []any{}, []any{}, []any{}
	delete(m, "reward_set")
	delete(m, "cycle_number")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
