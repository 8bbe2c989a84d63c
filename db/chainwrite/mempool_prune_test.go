package chainwrite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A block prunes from the mempool the transactions it mined and those spending a nonce they
// used, as origin or as sponsor, whichever of the two spends it; the others stay pending. It
// finds them through the indexes of unpruned rows by their ids and nonces: with thousands of
// other transactions pending and thousands pruned before, the update reads a handful of rows.
func TestPruneMinedByNonces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	block := []byte{0xb1}
	// Mined: alice's nonce 5, and bob's nonce 9 sponsored by carol at her nonce 2.
	const setup = `INSERT INTO txs (tx_id, index_block_hash, microblock_hash, raw_tx, tx_index, type_id, status, raw_result,
			canonical, microblock_canonical, microblock_sequence, block_hash, block_height, parent_index_block_hash,
			parent_block_hash, burn_block_height, burn_block_time, parent_burn_block_time, nonce, fee_rate, sender_address,
			sponsored, sponsor_address, sponsor_nonce, anchor_mode, post_condition_mode)
		SELECT id, ?0, '', '\x00', n, 0, 1, '\x00', true, true, 2147483647, '\x00', 7, '\x00', '\x00', 1, 1, 1, nonce, 1,
			sender, sponsor IS NOT NULL, sponsor, sponsor_nonce, 3, 1
		FROM (VALUES ('\xa1'::bytea, 0, 5, 'ST1ALICE', NULL, NULL), ('\xa2'::bytea, 1, 9, 'ST2BOB', 'ST3CAROL', 2))
			AS v(id, n, nonce, sender, sponsor, sponsor_nonce);
		INSERT INTO mempool_txs (tx_id, raw_tx, type_id, status, pruned, receipt_time, nonce, fee_rate, sender_address,
			sponsored, sponsor_address, sponsor_nonce, anchor_mode, post_condition_mode)
		SELECT id, '\x00', 0, 0, false, 1, nonce, 1, sender, sponsor IS NOT NULL, sponsor, sponsor_nonce, 3, 1
		FROM (VALUES ('\xa1'::bytea, 5, 'ST1ALICE', NULL, NULL),      -- mined itself
			('\xc1'::bytea, 5, 'ST1ALICE', NULL, NULL),                -- alice's nonce 5 again
			('\xc2'::bytea, 6, 'ST1ALICE', NULL, NULL),                -- alice's next nonce
			('\xc3'::bytea, 2, 'ST3CAROL', NULL, NULL),                -- carol's nonce 2, used to sponsor
			('\xc4'::bytea, 1, 'ST2BOB', 'ST1ALICE', 5),               -- sponsored at alice's nonce 5
			('\xc5'::bytea, 3, 'ST2BOB', 'ST3CAROL', 3))               -- carol's next nonce as sponsor
			AS v(id, nonce, sender, sponsor, sponsor_nonce);
		INSERT INTO mempool_txs (tx_id, raw_tx, type_id, status, pruned, receipt_time, nonce, fee_rate, sender_address,
			sponsored, anchor_mode, post_condition_mode)
		SELECT int8send(i), '\x00', 0, 0, i > 5000, 1, i, 1, 'ST' || i, false, 3, 1 FROM generate_series(1, 10000) i;
		ANALYZE txs, mempool_txs`
	if _, err := store.DB.NewRaw(setup, block).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if touched := mempoolRowsRead(t, store.DB, block); touched > 20 {
		t.Errorf("pruning a block's transactions reads %.0f mempool rows", touched)
	}
	if err := NewStore(store).Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		w.pruneMempool([][]byte{block}, nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var pruned []string
	if err := store.DB.NewRaw(`SELECT encode(tx_id, 'hex') FROM mempool_txs WHERE pruned AND length(tx_id) = 1 ORDER BY tx_id`).Scan(ctx, &pruned); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(pruned, " "), "a1 c1 c3 c4"; got != want {
		t.Errorf("pruned %s, want %s", got, want)
	}
	var pending int
	if err := store.DB.NewRaw("SELECT count(*) FROM mempool_txs WHERE NOT pruned AND length(tx_id) = 8").Scan(ctx, &pending); err != nil || pending != 5000 {
		t.Errorf("other pending transactions: %d (%v), want 5000", pending, err)
	}
}

// mempoolRowsRead runs pruneMinedSQL for block under EXPLAIN ANALYZE, rolled back, and returns
// the rows its plan read from mempool_txs: those each scan returned or discarded.
func mempoolRowsRead(t *testing.T, bdb *bun.DB, block []byte) float64 {
	t.Helper()
	ctx := context.Background()
	tx, err := bdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // the explained update is undone
	var out []string
	if err := tx.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+pruneMinedSQL+" SELECT count(*) FROM r", 0, byteArray([][]byte{block})).Scan(ctx, &out); err != nil {
		t.Fatal(err)
	}
	plan, _, err := dbtest.ParsePlan(strings.Join(out, ""))
	if err != nil {
		t.Fatalf("plan %q: %v", out, err)
	}
	return plan.RowsOf("mempool_txs")
}
