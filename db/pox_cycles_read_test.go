package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Pool members and solo stackers of cycle 10 behind signer K1, from pox-4 events written as
// ingestion writes them: a member counts for the key its pool operator committed with for the
// cycle, a stacker's newest covering operation decides, stack-increase never counts (the
// reference names it "stacks-increase"), orphaned events and ranges ending at the cycle do not.
func TestPoxSignersAndStackers(t *testing.T) {
	ctx := context.Background()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	k1, k2 := "0x02"+strings.Repeat("11", 32), "0x02"+strings.Repeat("22", 32)
	type ev struct {
		height    int32
		name      string
		stacker   string
		locked    string
		canonical bool
		data      map[string]any
	}
	span := func(start, end int) map[string]any {
		return map[string]any{"start_cycle_id": fmt.Sprint(start), "end_cycle_id": fmt.Sprint(end),
			"pox_addr": map[string]any{"version": "0x00", "hashbytes": "0x" + strings.Repeat("ab", 20)}}
	}
	with := func(m map[string]any, kv ...string) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	events := []ev{
		{100, "stack-aggregation-commit-indexed", "POOL", "0", true, with(span(10, 11), "signer_key", k1)},
		{99, "delegate-stack-stx", "MEMBER-A", "500", true, with(span(10, 12), "delegator", "POOL")},
		{95, "delegate-stack-stx", "MEMBER-B", "300", true, with(span(9, 11), "delegator", "POOL")},
		{98, "delegate-stack-increase", "MEMBER-B", "400", true, with(span(10, 11), "delegator", "POOL")},
		{97, "delegate-stack-stx", "MEMBER-C", "900", true, with(span(5, 10), "delegator", "POOL")},
		{97, "delegate-stack-stx", "MEMBER-D", "900", true, with(span(10, 11), "delegator", "OTHER-POOL")},
		{90, "stack-stx", "SOLO-S", "1000", true, with(span(8, 11), "signer_key", k1)},
		{101, "stack-increase", "SOLO-S", "1500", true, with(span(10, 11), "signer_key", k2)},
		{91, "stack-stx", "SOLO-T", "700", true, with(span(10, 11), "signer_key", k2)},
		{96, "stack-extend", "SOLO-T", "700", true, with(span(10, 13), "signer_key", k1)},
		{102, "stack-stx", "SOLO-U", "800", false, with(span(10, 11), "signer_key", k1)},
	}
	for i, e := range events {
		data, _ := json.Marshal(e.data)
		row := &db.PoxEvent{EventPosition: db.EventPosition{TxID: []byte{byte(i)}, IndexBlockHash: []byte{byte(e.height)}, MicroblockHash: []byte{},
			BlockHeight: e.height, Canonical: e.canonical, MicroblockCanonical: true},
			PoxVersion: 4, Name: e.name, Stacker: e.stacker, Locked: e.locked, Balance: "0", Data: data}
		if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range []struct {
		key    string
		weight int32
	}{{k1, 5}, {k2, 3}} {
		key, _ := hexBytes(s.key)
		row := &db.PoxSigner{IndexBlockHash: []byte{1}, CycleNumber: 10, Position: int32(i), BlockHeight: 80, Canonical: true,
			SigningKey: key, SignerAddress: "ST" + fmt.Sprint(i), Weight: s.weight, StackedAmount: "1"}
		if _, err := store.DB.NewInsert().Model(row).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// Cycles 10 and 11 in one statement each.
	signers, err := store.PoxSignersOf(ctx, []int32{10, 11}, db.PoxPage{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range signers {
		got = append(got, fmt.Sprintf("%d %s solo %d pooled %d", s.CycleNumber, db.Hex(s.SigningKey), s.SoloStackerCount, s.PooledStackerCount))
	}
	want := []string{"10 " + k1 + " solo 2 pooled 2", "10 " + k2 + " solo 0 pooled 0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("signers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	counts, err := store.PoxSignerCounts(ctx, []int32{10, 11})
	if err != nil || len(counts) != 1 || counts[0].CycleNumber != 10 || counts[0].N != 2 {
		t.Errorf("signer counts %+v, %v; want cycle 10: 2", counts, err)
	}

	key, _ := hexBytes(k1)
	// Cycle 11: MEMBER-A's range (10 to 12) reaches it, but POOL committed for cycle 10 only, so
	// MEMBER-A has no signer there; of the solo stackers only SOLO-T's extension (to 13) does.
	keys := []db.PoxSignerKey{{Cycle: 10, Key: string(key)}, {Cycle: 11, Key: string(key)}}
	stackers, err := store.PoxStackersOf(ctx, keys, db.PoxPage{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, s := range stackers {
		got = append(got, fmt.Sprintf("%d %s %s %s", s.CycleNumber, s.StackerAddress, s.StackedAmount, s.StackerType))
	}
	want = []string{"10 SOLO-S 1000 solo", "10 SOLO-T 700 solo", "10 MEMBER-A 500 pooled", "10 MEMBER-B 400 pooled", "11 SOLO-T 700 solo"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stackers of K1:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	counts, err = store.PoxStackerCounts(ctx, keys)
	if err != nil || len(counts) != 2 || counts[0].N+counts[1].N != 5 {
		t.Errorf("stacker counts %+v, %v; want 4 and 1", counts, err)
	}
	bySigner, err := store.PoxSignersByKey(ctx, []db.PoxSignerKey{{Cycle: 10, Key: string(key)}, {Cycle: 12, Key: string(key)}})
	if err != nil || len(bySigner) != 1 || bySigner[0].CycleNumber != 10 || bySigner[0].PooledStackerCount != 2 {
		t.Errorf("signers by key: %+v, %v; want K1 of cycle 10 alone", bySigner, err)
	}
}

func hexBytes(s string) ([]byte, error) {
	var b []byte
	_, err := fmt.Sscanf(strings.TrimPrefix(s, "0x"), "%x", &b)
	return b, err
}
