package db

import (
	"context"
	"io"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// LastRequestID is the highest id in the raw request log (0 when empty); a replay skips the
// log rows up to it without a round trip each.
func (s *Store) LastRequestID(ctx context.Context) (int64, error) {
	var id int64
	err := s.DB.NewSelect().Model((*EventObserverRequest)(nil)).ColumnExpr("coalesce(max(id), 0)").Scan(ctx, &id)
	return id, err
}

// ExportRequests writes the raw request log in the reference's TSV format: PostgreSQL's COPY
// text output of (id, receive_timestamp, event_path, payload) by ascending id, with
// timestamps in UTC.
func (s *Store) ExportRequests(ctx context.Context, w io.Writer) (int64, error) {
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET TIME ZONE 'UTC'"); err != nil {
		return 0, err
	}
	res, err := pgdriver.CopyTo(ctx, conn, w, `COPY (SELECT id, receive_timestamp, event_path, payload
		FROM event_observer_requests ORDER BY id) TO STDOUT WITH (FORMAT TEXT, DELIMITER E'\t', ENCODING 'UTF8')`)
	if err != nil {
		return 0, err
	}
	// The session setting must not leak to the pool's next user.
	if _, err := conn.ExecContext(ctx, "RESET TIME ZONE"); err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// chainTables are every table ingestion fills.
var chainTables = []string{
	"burn_blocks", "burnchain_rewards", "reward_slot_holders", "blocks", "microblocks", "txs", "mempool_txs",
	"stx_events", "ft_events", "nft_events", "contract_logs", "stx_lock_events", "pox_events", "miner_rewards",
	"smart_contracts", "principal_txs", "principal_stx_totals", "principal_stx_checkpoints", "principal_tx_positions",
	"principal_event_positions", "principal_event_counts", "pox_cycles", "pox_signers",
	"event_observer_requests", "attachments",
	"stackerdb_chunks", "block_proposal_responses",
}

// VacuumChainData vacuums the tables ingestion fills and refreshes their planner statistics.
// After a bulk load both are missing until autovacuum gets to the tables (never, where it is
// off): without statistics lookups by id fall back to full index scans, and without the
// visibility map the covering indexes (a block's transaction ids, an account's positions) are
// read through the heap instead of on their own. Only these tables and the one-row state tables
// every balance read joins (unanalyzed, the planner takes them for about 1,800 rows): a
// database-wide pass also visits the system catalogs and costs several times more than a replay
// of a small log.
func (s *Store) VacuumChainData(ctx context.Context) error {
	tables := append([]string{"chain_tip", "pox_state"}, chainTables...)
	return eachAtOnce(tables, restoreWorkers, func(table string) error {
		_, err := s.DB.ExecContext(ctx, "VACUUM (ANALYZE) "+table)
		return err
	})
}

// WipeChainData empties every table ingestion fills and resets the chain tip, so that a replay
// starts from nothing. Faucet and BRC-20 data are kept.
func (s *Store) WipeChainData(ctx context.Context) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := "TRUNCATE " + strings.Join(chainTables, ", ") + " RESTART IDENTITY"
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM chain_tip; INSERT INTO chain_tip DEFAULT VALUES"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM pox_state; INSERT INTO pox_state DEFAULT VALUES")
		return err
	})
}
