package db

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// An import into an empty chain does not keep the per-principal totals, checkpoints, positions
// and counts block by block (chain_tip.totals_deferred, see DeferUpkeep): they are a function of
// the counted rows alone, and computing them once from the final rows, sorted, with their keys
// built afterwards, costs a fraction of keeping a million rows up to date batch by batch.
//
// Each recomputation partitions by principal in byte order (COLLATE "C"): the same groups as the
// column's collation, whose comparisons cost several times more in the sorts.

// txPositionsRecomputeSQL numbers every principal's counted transactions.
var txPositionsRecomputeSQL = `
INSERT INTO principal_tx_positions (principal, seq, tseq, sseq, block_height, tx_id, index_block_hash, microblock_hash)
SELECT principal, row_number() OVER w,
	CASE WHEN ` + TransferRolesSQL + ` THEN count(*) FILTER (WHERE ` + TransferRolesSQL + `) OVER w END,
	CASE WHEN ` + SummaryRolesSQL + ` THEN count(*) FILTER (WHERE ` + SummaryRolesSQL + `) OVER w END,
	block_height, tx_id, index_block_hash, microblock_hash
FROM principal_txs WHERE ` + anchored + ` AND canonical AND microblock_canonical
WINDOW w AS (PARTITION BY principal COLLATE "C" ORDER BY ` + TxPositionOrder + ` ROWS UNBOUNDED PRECEDING)`

// eventPositionsRecomputeSQL numbers every principal's counted events (and its contract logs
// among them), then counts them.
var eventPositionsRecomputeSQL = `
WITH ev (principal, kind, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index) AS (` +
	EventParties(anchored) + `
)
INSERT INTO principal_event_positions (principal, seq, kind, tx_id, index_block_hash, microblock_hash, event_index, log_seq)
SELECT principal, row_number() OVER w, kind, tx_id, index_block_hash, microblock_hash, event_index,
	CASE WHEN kind = 0 THEN count(*) FILTER (WHERE kind = 0) OVER w END
FROM ev WHERE principal IS NOT NULL
WINDOW w AS (PARTITION BY principal COLLATE "C" ORDER BY ` + EventPositionOrder + ` ROWS UNBOUNDED PRECEDING);
INSERT INTO principal_event_counts (principal, event_count, log_count)
SELECT principal, max(seq), count(log_seq) FROM principal_event_positions GROUP BY principal`

// checkpointsRecomputeSQL writes every principal's totals after each height at which its
// counted rows changed, and its totals: those after its last such height. The sums are grouped
// over the rows sorted by principal and height, the order the running totals need anyway: the
// planner's choice of a hash table holds several numeric sums for every (principal, height)
// group at once, about 1.4 KB each, and costs a third more time than the sort.
var checkpointsRecomputeSQL = `SET LOCAL enable_hashagg = off;
WITH d (principal, block_height, received, sent, fees, rewards, tx_count, tx_count_all, summary_tx_count) AS (` + TotalsRows(anchored) + `
), per AS (
	SELECT principal COLLATE "C" AS principal, block_height, ` + PerSums + `
	FROM d WHERE principal IS NOT NULL GROUP BY 1, 2
), cp AS (
	SELECT principal, block_height, sum(received) OVER w AS received, sum(sent) OVER w AS sent, sum(fees) OVER w AS fees,
		sum(rewards) OVER w AS rewards, sum(tx_count) OVER w AS tx_count, sum(tx_count_all) OVER w AS tx_count_all,
		sum(summary_tx_count) OVER w AS summary_tx_count,
		lead(block_height) OVER w IS NULL AS last
	FROM per WINDOW w AS (PARTITION BY principal ORDER BY block_height ROWS UNBOUNDED PRECEDING)
), ins AS (
	INSERT INTO principal_stx_checkpoints (principal, block_height, total_received, total_sent, total_fees_sent,
		total_miner_rewards_received, tx_count, tx_count_all)
	SELECT principal, block_height, received, sent, fees, rewards, tx_count, tx_count_all FROM cp
)
INSERT INTO principal_stx_totals (principal, total_received, total_sent, total_fees_sent, total_miner_rewards_received,
	tx_count, tx_count_all, summary_tx_count)
SELECT principal, received, sent, fees, rewards, tx_count, tx_count_all, summary_tx_count FROM cp WHERE last`

// totalsRecompute is a recomputation with the tables it fills.
type totalsRecompute struct {
	tables []string
	sql    string
}

// totalsRecomputes are independent of each other and run at once, the longest first.
var totalsRecomputes = []totalsRecompute{
	{[]string{"principal_stx_checkpoints", "principal_stx_totals"}, checkpointsRecomputeSQL},
	{[]string{"principal_event_positions", "principal_event_counts"}, eventPositionsRecomputeSQL},
	{[]string{"principal_tx_positions"}, txPositionsRecomputeSQL},
	{[]string{"ft_balances"}, ftBalancesRecomputeSQL},
	{[]string{"nft_custody"}, nftCustodyRecomputeSQL},
}

// withDeferredTotals calls run with the recomputations of the totals an import deferred, none
// if it did not. The chain tip lock, held until the flag is cleared after run, keeps ingestion
// out meanwhile; the recomputations run beside it on other connections, each emptying and
// filling its tables in one transaction, so that one killed half way leaves the flag set and
// the next migration does them all again.
func withDeferredTotals(ctx context.Context, bdb *bun.DB, run func(recomputes []func() error) error) error {
	var exists bool
	// Before the migration that adds the flag there is nothing deferred.
	if err := bdb.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = to_regclass('chain_tip') AND attname = 'totals_deferred' AND NOT attisdropped)`).Scan(&exists); err != nil {
		return err
	}
	deferred := false
	if exists {
		err := bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := tx.QueryRowContext(ctx, "SELECT totals_deferred FROM chain_tip FOR UPDATE").Scan(&deferred); err != nil || !deferred {
				return err
			}
			var recomputes []func() error
			for _, r := range totalsRecomputes {
				recomputes = append(recomputes, func() error { return recompute(ctx, bdb, r.tables, r.sql) })
			}
			if err := run(recomputes); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "UPDATE chain_tip SET totals_deferred = false")
			return err
		})
		if err != nil || deferred {
			return err
		}
	}
	return run(nil)
}

// primaryKey is a table's primary key constraint; Table is the name as regclass prints it.
type primaryKey struct {
	Table      string `bun:"table"`
	Name       string `bun:"name"`
	Definition string `bun:"definition"`
}

// recompute empties the tables and fills them with q in one transaction, with their primary
// keys dropped meanwhile: a key built once over the sorted rows costs a fraction of inserting
// every row into it.
func recompute(ctx context.Context, bdb *bun.DB, tables []string, q string) error {
	return bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The sorts of the rows are most of the time; give them memory.
		if _, err := tx.ExecContext(ctx, "SET LOCAL work_mem = '256MB'; SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
			return err
		}
		var keys []primaryKey
		if err := tx.NewRaw(`SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
			FROM pg_constraint WHERE contype = 'p' AND conrelid = ANY(?::regclass[])`, pgdialect.Array(tables)).Scan(ctx, &keys); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "TRUNCATE "+strings.Join(tables, ", ")); err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := tx.NewRaw("ALTER TABLE ? DROP CONSTRAINT ?", bun.Safe(k.Table), bun.Ident(k.Name)).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := tx.NewRaw("ALTER TABLE ? ADD CONSTRAINT ? ?", bun.Safe(k.Table), bun.Ident(k.Name), bun.Safe(k.Definition)).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
