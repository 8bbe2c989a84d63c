package ingest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
)

// totalsMismatchSQL recomputes every principal's STX totals from the event tables, each sum
// on its own, and lists the principals whose maintained row differs.
const totalsMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
recv AS (SELECT recipient AS p, sum(amount) AS v FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
sent AS (SELECT sender AS p, sum(amount) AS v FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
fees AS (SELECT p, sum(fee_rate) AS v FROM (
	SELECT sender_address AS p, fee_rate FROM txs WHERE NOT sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
	UNION ALL
	SELECT sponsor_address, fee_rate FROM txs WHERE sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)) f GROUP BY 1),
rewards AS (SELECT recipient AS p, sum(coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced) AS v
	FROM miner_rewards WHERE canonical AND mature_block_height <= (SELECT block_height FROM chain_tip) GROUP BY 1),
counts AS (SELECT principal AS p, count(*) AS v FROM principal_txs
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
everyone AS (SELECT p FROM recv UNION SELECT p FROM sent UNION SELECT p FROM fees UNION SELECT p FROM rewards
	UNION SELECT p FROM counts UNION SELECT principal FROM principal_stx_totals)
SELECT e.p FROM everyone e
LEFT JOIN principal_stx_totals t ON t.principal = e.p
LEFT JOIN recv ON recv.p = e.p LEFT JOIN sent ON sent.p = e.p LEFT JOIN fees ON fees.p = e.p
LEFT JOIN rewards ON rewards.p = e.p LEFT JOIN counts ON counts.p = e.p
WHERE e.p IS NOT NULL AND (
	coalesce(t.total_received, 0) <> coalesce(recv.v, 0) OR coalesce(t.total_sent, 0) <> coalesce(sent.v, 0)
	OR coalesce(t.total_fees_sent, 0) <> coalesce(fees.v, 0) OR coalesce(t.total_miner_rewards_received, 0) <> coalesce(rewards.v, 0)
	OR coalesce(t.tx_count, 0) <> coalesce(counts.v, 0))`

// checkTotals checks that the incrementally maintained principal_stx_totals of a replayed
// fixture (forks and microblocks included) equal a recomputation from scratch.
func checkTotals(t *testing.T, store *db.Store) {
	var bad []string
	if err := store.DB.NewRaw(totalsMismatchSQL).Scan(context.Background(), &bad); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%d principals with wrong totals, e.g. %v", len(bad), bad[:min(5, len(bad))])
	}
	if n := count(t, store, "SELECT count(*) FROM principal_stx_totals WHERE tx_count > 0"); n == 0 {
		t.Error("no principal has any transaction: the invariant checked nothing")
	}
}

// checkpointsMismatchSQL recomputes, for every principal and every canonical height at which
// its counted rows changed, its totals up to that height by summing the history, and lists the
// (principal, height) pairs whose maintained checkpoint differs or is missing or left over.
const checkpointsMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
r (p, h, recv, sent, fees, rewards, n, n_all) AS (
	SELECT recipient, block_height, amount, 0, 0, 0, 0, 0 FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) AND recipient IS NOT NULL
	UNION ALL
	SELECT sender, block_height, 0, amount, 0, 0, 0, 0 FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) AND sender IS NOT NULL
	UNION ALL
	SELECT sender_address, block_height, 0, 0, fee_rate, 0, 0, 0 FROM txs
	WHERE NOT sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
	UNION ALL
	SELECT sponsor_address, block_height, 0, 0, fee_rate, 0, 0, 0 FROM txs
	WHERE sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
	UNION ALL
	SELECT recipient, mature_block_height, 0, 0, 0, coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced, 0, 0
	FROM miner_rewards WHERE canonical AND index_block_hash IN (SELECT * FROM counted)
	UNION ALL
	SELECT principal, block_height, 0, 0, 0, 0, CASE WHEN roles & 61 <> 0 THEN 1 ELSE 0 END, 1 FROM principal_txs
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
),
points AS (SELECT DISTINCT p, h FROM r WHERE p IS NOT NULL),
expected AS (SELECT pt.p, pt.h,
	(SELECT sum(recv) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS recv, (SELECT sum(sent) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS sent,
	(SELECT sum(fees) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS fees, (SELECT sum(rewards) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS rewards,
	(SELECT sum(n) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS n, (SELECT sum(n_all) FROM r WHERE r.p = pt.p AND r.h <= pt.h) AS n_all
	FROM points pt)
SELECT coalesce(e.p, c.principal) || '@' || coalesce(e.h, c.block_height) FROM expected e
FULL JOIN principal_stx_checkpoints c ON c.principal = e.p AND c.block_height = e.h
WHERE e.p IS NULL OR c.principal IS NULL OR e.recv <> c.total_received OR e.sent <> c.total_sent OR e.fees <> c.total_fees_sent
	OR e.rewards <> c.total_miner_rewards_received OR e.n <> c.tx_count OR e.n_all <> c.tx_count_all`

// positionsMismatchSQL numbers every principal's canonical anchored transactions afresh (all of
// them, and those of transactions_with_transfers) and lists the rows whose maintained position
// differs, is missing or is left over, and the principals whose tx_count_all differs.
const positionsMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
e AS (SELECT principal, tx_id, index_block_hash, microblock_hash, block_height,
	row_number() OVER (PARTITION BY principal ORDER BY block_height, microblock_sequence, tx_index, tx_id) AS seq,
	CASE WHEN roles & 61 <> 0 THEN row_number() OVER (PARTITION BY principal, roles & 61 <> 0
		ORDER BY block_height, microblock_sequence, tx_index, tx_id) END AS tseq,
	CASE WHEN roles & 32 <> 0 OR (roles & 31 <> 0 AND roles & 128 = 0) THEN row_number() OVER (
		PARTITION BY principal, roles & 32 <> 0 OR (roles & 31 <> 0 AND roles & 128 = 0)
		ORDER BY block_height, microblock_sequence, tx_index, tx_id) END AS sseq
	FROM principal_txs WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted))
SELECT coalesce(e.principal, x.principal) || ' seq ' || coalesce(e.seq, x.seq) FROM e
FULL JOIN principal_tx_positions x ON x.principal = e.principal AND x.seq = e.seq
WHERE e.principal IS NULL OR x.principal IS NULL OR x.tx_id <> e.tx_id OR x.index_block_hash <> e.index_block_hash
	OR x.microblock_hash <> e.microblock_hash OR x.block_height <> e.block_height OR x.tseq IS DISTINCT FROM e.tseq
	OR x.sseq IS DISTINCT FROM e.sseq
UNION ALL
SELECT t.principal || ' tx_count_all' FROM principal_stx_totals t
WHERE t.tx_count_all <> (SELECT count(*) FROM principal_tx_positions x WHERE x.principal = t.principal)
	OR t.summary_tx_count <> (SELECT count(sseq) FROM principal_tx_positions x WHERE x.principal = t.principal)`

// checkPositions checks the per-principal checkpoints and list positions that ingestion keeps
// beside the totals (forks and microblocks included) against a recomputation from scratch.
func checkPositions(t *testing.T, store *db.Store) {
	for _, q := range []struct{ what, sql string }{{"checkpoints", checkpointsMismatchSQL}, {"positions", positionsMismatchSQL},
		{"event positions", eventPositionsMismatchSQL}} {
		var bad []string
		if err := store.DB.NewRaw(q.sql).Scan(context.Background(), &bad); err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%d wrong %s, e.g. %v", len(bad), q.what, bad[:min(5, len(bad))])
		}
	}
	checkEventPages(t, store)
	if n := count(t, store, "SELECT count(*) FROM principal_tx_positions WHERE tseq IS NOT NULL"); n == 0 {
		t.Error("no transfer positions: the invariant checked nothing")
	}
}

// TestPositionsMigration checks the migration that fills the checkpoints and positions of a
// database ingested before they existed: after a replay with forks and microblocks, the
// migration reverted and applied again rebuilds them as ingestion keeps them.
func TestPositionsMigration(t *testing.T) {
	store, _ := replayFixture(t, "mainnet-reorg-scenario2")
	for _, f := range []string{"20261128000200_contract_log_positions.tx.down", "20261126000200_v2_addresses.tx.down",
		"20261124000501_principal_event_positions.tx.down", "20261124000500_principal_positions.tx.down",
		"20261124000500_principal_positions.tx.up", "20261124000501_principal_event_positions.tx.up",
		"20261126000200_v2_addresses.tx.up", "20261128000200_contract_log_positions.tx.up"} {
		b, err := os.ReadFile("../db/migrations/" + f + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, stmt := range strings.Split(string(b), "--bun:split") {
			if _, err := store.DB.ExecContext(context.Background(), stmt); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
	}
	checkTotals(t, store)
	checkPositions(t, store)
}

// TestSummaryPositionsMigration checks the migration that numbers the address transaction
// summaries on a database ingested before it, with "block 0" boot data: reverted (and the boot
// data's mark cleared, as such a database has none) and applied again, it marks the same rows
// and numbers them as ingestion does.
func TestSummaryPositionsMigration(t *testing.T) {
	store, _ := replayFixture(t, "regtest-env-pox-4-stack-stx-in-reward-phase-S1")
	marked := count(t, store, "SELECT count(*) FROM principal_txs WHERE roles & 128 <> 0")
	if marked == 0 {
		t.Fatal("no boot data marked: the fixture has no block 0")
	}
	for _, f := range []string{"20261126000200_v2_addresses.tx.down", "-", "20261126000200_v2_addresses.tx.up"} {
		stmts := []string{"UPDATE principal_txs SET roles = roles & ~128"}
		if f != "-" {
			b, err := os.ReadFile("../db/migrations/" + f + ".sql")
			if err != nil {
				t.Fatal(err)
			}
			stmts = strings.Split(string(b), "--bun:split")
		}
		for _, stmt := range stmts {
			if _, err := store.DB.ExecContext(context.Background(), stmt); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
	}
	if n := count(t, store, "SELECT count(*) FROM principal_txs WHERE roles & 128 <> 0"); n != marked {
		t.Errorf("the migration marks %d rows as boot data, ingestion %d", n, marked)
	}
	checkPositions(t, store)
}

// eventPositionsMismatchSQL numbers every principal's canonical events afresh and lists the
// positions that differ, are missing or are left over, and the counts that differ.
const eventPositionsMismatchSQL = `
WITH parties AS (
	SELECT contract_identifier AS p, 0 AS kind, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM contract_logs
	UNION ALL SELECT locked_address, 1, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM stx_lock_events
	UNION ALL SELECT unnest(ARRAY[sender, recipient]), 2, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM stx_events
	UNION ALL SELECT unnest(ARRAY[sender, recipient]), 3, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM ft_events
	UNION ALL SELECT unnest(ARRAY[sender, recipient]), 4, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM nft_events
), d AS (SELECT DISTINCT * FROM parties WHERE p IS NOT NULL AND canonical AND microblock_canonical
	AND index_block_hash IN (SELECT index_block_hash FROM blocks WHERE canonical)
), e AS (SELECT p, kind, tx_id, index_block_hash, microblock_hash, event_index,
	row_number() OVER w AS seq, CASE WHEN kind = 0 THEN count(*) FILTER (WHERE kind = 0) OVER w END AS log_seq
	FROM d WINDOW w AS (PARTITION BY p ORDER BY block_height, microblock_sequence, tx_index, event_index, kind, tx_id ROWS UNBOUNDED PRECEDING))
SELECT coalesce(e.p, x.principal) || ' event ' || coalesce(e.seq, x.seq) FROM e
FULL JOIN principal_event_positions x ON x.principal = e.p AND x.seq = e.seq
WHERE e.p IS NULL OR x.principal IS NULL OR x.kind <> e.kind OR x.tx_id <> e.tx_id OR x.index_block_hash <> e.index_block_hash
	OR x.microblock_hash <> e.microblock_hash OR x.event_index <> e.event_index OR x.log_seq IS DISTINCT FROM e.log_seq
UNION ALL
SELECT c.principal || ' event_count' FROM principal_event_counts c
WHERE c.event_count <> (SELECT count(*) FROM principal_event_positions x WHERE x.principal = c.principal)
	OR c.log_count <> (SELECT count(*) FROM principal_event_positions x WHERE x.principal = c.principal AND x.kind = 0)`

// checkEventPages compares pages of the principals with the most events, read by position, with
// the same pages taken from a sort of all their events.
func checkEventPages(t *testing.T, store *db.Store) {
	ctx := context.Background()
	var principals []string
	if err := store.DB.NewRaw("SELECT principal FROM principal_event_counts ORDER BY event_count DESC, principal LIMIT 3").Scan(ctx, &principals); err != nil {
		t.Fatal(err)
	}
	for _, p := range principals {
		var all []string
		err := store.DB.NewRaw(`SELECT encode(tx_id, 'hex') || ':' || event_index FROM (
			SELECT tx_id, event_index, block_height, microblock_sequence, tx_index FROM contract_logs WHERE contract_identifier = ?0 AND canonical AND microblock_canonical
			UNION SELECT tx_id, event_index, block_height, microblock_sequence, tx_index FROM stx_lock_events WHERE locked_address = ?0 AND canonical AND microblock_canonical
			UNION SELECT tx_id, event_index, block_height, microblock_sequence, tx_index FROM stx_events WHERE ?0 IN (sender, recipient) AND canonical AND microblock_canonical
			UNION SELECT tx_id, event_index, block_height, microblock_sequence, tx_index FROM ft_events WHERE ?0 IN (sender, recipient) AND canonical AND microblock_canonical
			UNION SELECT tx_id, event_index, block_height, microblock_sequence, tx_index FROM nft_events WHERE ?0 IN (sender, recipient) AND canonical AND microblock_canonical
			) e ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC`, p).Scan(ctx, &all)
		if err != nil {
			t.Fatal(err)
		}
		for _, offset := range []int{0, 1, len(all) / 2, max(len(all)-2, 0)} {
			es, err := store.Events(ctx, db.EventFilter{Principal: p, Types: db.AllEventTypes, Limit: 5, Offset: offset})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(es))
			for i, e := range es {
				got[i] = fmt.Sprintf("%x:%d", e.Position().TxID, e.Position().EventIndex)
			}
			if want := all[min(offset, len(all)):min(offset+5, len(all))]; !slices.Equal(got, want) {
				t.Errorf("%s events at offset %d: %v, want %v", p, offset, got, want)
			}
		}
	}
}

// eventTables are the tables of each event kind.
var eventTables = map[db.EventType]string{
	db.EventSmartContractLog: "contract_logs", db.EventStxLock: "stx_lock_events", db.EventStxAsset: "stx_events",
	db.EventFungibleTokenAsset: "ft_events", db.EventNonFungibleTokenAsset: "nft_events",
}

// checkEventKinds checks the rules reads of a transaction's events rely on: every stored event is
// of a kind its transaction's type can emit (db.EventKindsOfType), and each transaction row
// records the kinds of exactly the events stored for it (db.Tx.KindsOfEvents).
func checkEventKinds(t *testing.T, store *db.Store) {
	t.Helper()
	var stored []string
	for kind, table := range eventTables {
		var types []int16
		q := "SELECT DISTINCT t.type_id FROM " + table + " e JOIN txs t USING (tx_id, index_block_hash, microblock_hash)"
		if err := store.DB.NewRaw(q).Scan(context.Background(), &types); err != nil {
			t.Fatal(err)
		}
		for _, typeID := range types {
			if !db.EventKindsOfType(typeID).Has(kind) {
				t.Errorf("a transaction of type %d has a %s event", typeID, kind)
			}
		}
		stored = append(stored, fmt.Sprintf(`CASE WHEN EXISTS (SELECT 1 FROM %s e WHERE e.tx_id = t.tx_id
			AND e.index_block_hash = t.index_block_hash AND e.microblock_hash = t.microblock_hash) THEN %d ELSE 0 END`,
			table, db.KindsOf([]db.EventType{kind})))
	}
	if n := count(t, store, "SELECT count(*) FROM txs t WHERE event_kinds <> "+strings.Join(stored, " + ")); n > 0 {
		t.Errorf("%d transactions record other kinds of events than those stored for them", n)
	}
}
