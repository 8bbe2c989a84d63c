package main

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// forkOf returns the /new_block payload of rec on a competing branch that leaves the chain
// at height from: the block's own hashes (and its parent's, above the fork point) are
// changed, its transactions are the same, as when two miners confirm the same ones.
func forkOf(t *testing.T, rec *tsv.Record, from int) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(rec.Payload, &b); err != nil {
		t.Fatal(err)
	}
	other := func(key string) {
		h, err := hex.DecodeString(strings.TrimPrefix(b[key].(string), "0x"))
		if err != nil || len(h) == 0 {
			t.Fatalf("%s: %v", key, err)
		}
		h[len(h)-1] ^= 0x5a
		b[key] = "0x" + hex.EncodeToString(h)
	}
	other("block_hash")
	other("index_block_hash")
	if int(b["block_height"].(float64)) > from {
		other("parent_block_hash")
		other("parent_index_block_hash")
	}
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Deep forks won and lost back and forth (12 blocks and more replaced each time) leave the
// canonical chain, balances and listings as a delivery of only the winning branch does.
func TestDeepForksBackAndForth(t *testing.T) {
	t.Parallel()
	n := newNode(t, "stacks/mocknet.tsv.gz")
	byHeight := map[int]*tsv.Record{}
	for _, rec := range n.records {
		if rec.Path != "/new_block" {
			continue
		}
		var b struct {
			BlockHeight int `json:"block_height"`
		}
		if err := json.Unmarshal(rec.Payload, &b); err != nil {
			t.Fatal(err)
		}
		byHeight[b.BlockHeight] = rec
	}
	const forkAt, last = 10, 25
	if byHeight[last] == nil || byHeight[forkAt] == nil {
		t.Fatalf("the fixture lacks blocks %d..%d", forkAt, last)
	}
	type delivery struct {
		height int
		fork   bool
	}
	var order []delivery
	add := func(from, to int, fork bool) {
		for h := from; h <= to; h++ {
			order = append(order, delivery{h, fork})
		}
	}
	add(1, forkAt+11, false)     // the main branch to 21
	add(forkAt, forkAt+12, true) // the fork overtakes it at 22
	add(forkAt+12, forkAt+13, false)
	add(forkAt+13, forkAt+14, true)
	add(forkAt+14, last, false) // the main branch wins at 25

	forkTips := 0
	run := func(url string, order []delivery) {
		api, events := startServeOn(t, url)
		client := n.client
		for i, d := range order {
			payload := byHeight[d.height].Payload
			if d.fork {
				payload = forkOf(t, byHeight[d.height], forkAt)
			}
			deliverOnce(t, &client, events+"/new_block", payload)
			if t.Failed() {
				t.FailNow()
			}
			if i+1 < len(order) && order[i+1].fork != d.fork || i+1 == len(order) {
				// The end of a run of one branch: it must hold the tip now.
				var status struct {
					ChainTip struct {
						IndexBlockHash string `json:"index_block_hash"`
					} `json:"chain_tip"`
				}
				getJSON(t, api+"/extended/v1/status", &status)
				var b struct {
					IndexBlockHash string `json:"index_block_hash"`
				}
				json.Unmarshal(payload, &b) //nolint:errcheck // our own payload
				if status.ChainTip.IndexBlockHash != b.IndexBlockHash {
					t.Fatalf("after delivering up to %d on the %v branch the tip is %s, want %s", d.height,
						map[bool]string{true: "fork", false: "main"}[d.fork], status.ChainTip.IndexBlockHash, b.IndexBlockHash)
				}
				if d.fork {
					forkTips++
				}
			}
		}
	}
	forked, straight := dbtest.URL(t), dbtest.URL(t)
	run(forked, order)
	var winning []delivery
	for h := 1; h <= last; h++ {
		winning = append(winning, delivery{h, false})
	}
	run(straight, winning)
	if forkTips != 2 {
		t.Fatalf("the fork held the tip %d times, want 2", forkTips)
	}
	got, want := digestOf(t, forked), digestOf(t, straight)
	if got != want {
		t.Fatalf("after forks back and forth the canonical state differs from the winning branch alone.\ngot:\n%s\nwant:\n%s", got, want)
	}
}
