package ingest

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
)

// count runs a COUNT-style query and returns its single integer.
func count(t testing.TB, store *db.Store, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := store.DB.NewRaw(q, args...).Scan(context.Background(), &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func hexID(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// minedTx is where a transaction ended up on the canonical chain.
type minedTx struct {
	BlockHeight        int32 `bun:"block_height"`
	MicroblockSequence int32 `bun:"microblock_sequence"`
	Rows               int   `bun:"rows"`
}

func canonicalTx(t *testing.T, store *db.Store, id string) minedTx {
	t.Helper()
	var m minedTx
	err := store.DB.NewRaw(`SELECT max(block_height) AS block_height, max(microblock_sequence) AS microblock_sequence, count(*) AS rows
		FROM txs WHERE tx_id = ? AND canonical AND microblock_canonical`, hexID(t, id)).Scan(context.Background(), &m)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fixtureCheck is what TestReplayFixtures checks of one fixture beyond the totals invariant:
// counts that must come out exactly, and further checks.
type fixtureCheck struct {
	facts []fact
	check func(t *testing.T, store *db.Store)
}

type fact struct {
	query string
	want  int64
}

// fixtureFacts are facts about the replayed fixtures, checked against the reference's tests
// and by reading the payloads.
var fixtureFacts = map[string]fixtureCheck{
	"mocknet": {[]fact{
		{"SELECT count(*) FROM blocks WHERE canonical", 28},
		{"SELECT block_height FROM chain_tip", 28},
		{"SELECT count(*) FROM stx_events WHERE asset_event_type_id = 2 AND canonical", 35},
		{"SELECT count(*) FROM microblocks WHERE index_block_hash = ''", 2},
	}, nil},
	"mainnet-block0": {[]fact{
		{"SELECT count(*) FROM blocks", 3},
		{"SELECT count(*) FROM blocks WHERE canonical", 2},
		// The 8 boot transactions of block 0 moved into block 1, after block 1's coinbase.
		{"SELECT count(*) FROM txs WHERE block_height = 1 AND canonical", 9},
		{"SELECT count(*) FROM txs WHERE block_height = 0", 0},
		{"SELECT count(*) FROM smart_contracts WHERE canonical AND block_height = 1", 6},
		{"SELECT count(*) FROM burn_blocks", 7},
		// Like the reference, a block sets the tip's burn height to its own.
		{"SELECT burn_block_height FROM chain_tip", 666055},
	}, nil},
	"poisonmicroblock": {[]fact{
		{"SELECT count(*) FROM blocks", 1},
		{"SELECT count(*) FROM txs", 63},
		{"SELECT count(*) FROM txs WHERE type_id = 3", 10}, // checked by hand-decoding the payload bytes
		{"SELECT count(*) FROM event_observer_requests", 1},
	}, func(t *testing.T, store *db.Store) {
		for status, want := range map[int16]int64{db.TxStatusSuccess: 1, db.TxStatusAbortByResponse: 1, db.TxStatusAbortByPostCondition: 1} {
			if n := count(t, store, "SELECT count(*) FROM txs WHERE status = ?", status); n < want {
				t.Errorf("txs with status %d = %d, want at least %d", status, n, want)
			}
		}
	}},
	"mainnet-reorg-scenario1": {[]fact{
		{"SELECT block_height FROM chain_tip", 47},
		{"SELECT count(*) FROM blocks WHERE canonical", 47},
		{"SELECT count(*) FROM blocks", 50},
	}, func(t *testing.T, store *db.Store) {
		got := canonicalTx(t, store, "0x03484817283a83a0b0c23e84c2659f39c9a06d81a63329464d979ec2af476596")
		if got != (minedTx{BlockHeight: 45, MicroblockSequence: 0, Rows: 1}) {
			t.Errorf("tx 0x03484817… canonical at %+v, want block 45 microblock 0, one row", got)
		}
	}},
	"mainnet-reorg-scenario2": {[]fact{
		{"SELECT block_height FROM chain_tip", 4},
		{"SELECT count(*) FROM blocks WHERE block_height = 2", 2},
		{"SELECT count(*) FROM blocks WHERE block_height = 2 AND canonical", 1},
	}, func(t *testing.T, store *db.Store) {
		got := canonicalTx(t, store, "0x87916a01f0c31d246649eb2631a57b135cc94d26cd802f3b6a24723f2f21c74a")
		if got.BlockHeight != 2 || got.Rows != 1 {
			t.Errorf("tx 0x87916a01… canonical at %+v, want block 2, one row", got)
		}
	}},
	"epoch-3-transition": {[]fact{
		{"SELECT block_height FROM chain_tip", 50},
		{"SELECT count(*) FROM blocks WHERE canonical", 50},
		{"SELECT count(*) FROM burn_blocks", 136},
		{"SELECT count(*) FROM mempool_txs", 51},
		{"SELECT count(*) FROM stx_lock_events WHERE canonical", 9},
		{"SELECT count(*) FROM pox_events WHERE canonical AND pox_version = 4", 9},
		{"SELECT count(*) FROM stx_events WHERE canonical AND asset_event_type_id = 2", 34},
		{"SELECT count(*) FROM stx_events WHERE canonical AND asset_event_type_id = 1", 36},
		{"SELECT count(*) FROM blocks WHERE signer_bitvec IS NOT NULL", 0},
	}, nil},
	"fuzzed-transactions-1": {[]fact{
		{"SELECT block_height FROM chain_tip", 12},
		{"SELECT count(*) FROM mempool_txs", 11},
		// The dropped transactions were never announced to this observer.
		{"SELECT count(*) FROM mempool_txs WHERE pruned AND status < 0", 0},
		{"SELECT count(*) FROM blocks WHERE signer_bitvec IS NOT NULL", 12},
	}, nil},
	"mainnet-out-of-order-microblock": {[]fact{
		{"SELECT count(*) FROM blocks", 1},
		{"SELECT count(*) FROM txs WHERE index_block_hash = ''", 0},
	}, nil},
}

// checkFacts checks a replayed fixture's facts, if it has any.
func checkFacts(t *testing.T, store *db.Store, fixture string) {
	c := fixtureFacts[fixture]
	for _, f := range c.facts {
		if got := count(t, store, f.query); got != f.want {
			t.Errorf("%s = %d, want %d", f.query, got, f.want)
		}
	}
	if c.check != nil {
		c.check(t, store)
	}
}
