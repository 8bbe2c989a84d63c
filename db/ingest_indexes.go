package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// deferrableIndexes are the secondary indexes of the chain tables that only the API reads:
// ingestion finds rows by their keys and by block or microblock hash, never through these. A
// bulk import builds them once at the end, which costs a fraction of keeping them row by row.
var deferrableIndexes = []string{
	"txs_smart_contract_idx", "txs_block_ids_idx", "txs_recipient_idx", "txs_sponsor_idx", "txs_sender_idx",
	"txs_order_idx", "txs_contract_call_idx",
	"stx_events_sender_idx", "stx_events_recipient_idx",
	"contract_logs_contract_idx",
	"principal_txs_transfers_idx", "principal_txs_order_idx",
	"principal_tx_positions_transfers_idx", "principal_tx_positions_summaries_idx",
	"ft_balances_order_idx", "nft_custody_recipient_idx",
}

// DeferUpkeep, when the database holds no chain yet, drops the deferrable indexes, recording
// their definitions in deferred_indexes, and leaves the per-principal totals to be recomputed
// (see withDeferredTotals), all in one transaction, and reports whether it did. Both stay recorded
// until CompleteUpkeep does the work, so that after an import killed half way the next process
// to migrate the database (every command that writes it) does it.
func (s *Store) DeferUpkeep(ctx context.Context) (bool, error) {
	deferred := false
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The chain tip lock keeps ingestion out while the chain is found empty and the indexes go.
		var empty bool
		if err := tx.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM blocks) AND NOT EXISTS (SELECT 1 FROM txs)
			FROM chain_tip FOR UPDATE`).Scan(&empty); err != nil || !empty {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE chain_tip SET totals_deferred = true"); err != nil {
			return err
		}
		var names []string
		if err := tx.NewRaw(`INSERT INTO deferred_indexes (name, definition)
			SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c
			WHERE c.relkind = 'i' AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(?)
			ON CONFLICT (name) DO NOTHING
			RETURNING name`, pgdialect.Array(deferrableIndexes)).Scan(ctx, &names); err != nil {
			return err
		}
		for _, n := range names {
			if _, err := tx.NewRaw("DROP INDEX ?", bun.Ident(n)).Exec(ctx); err != nil {
				return err
			}
		}
		deferred = true
		return nil
	})
	return deferred, err
}

// CompleteUpkeep recomputes the totals and builds the indexes DeferUpkeep left. It runs without
// the driver's read timeout: on a large chain the work takes minutes.
func (s *Store) CompleteUpkeep(ctx context.Context) error {
	mdb, closeDB := s.migrationDB()
	defer closeDB()
	return completeUpkeep(ctx, mdb)
}

// completeUpkeep does what DeferUpkeep left, on restoreWorkers connections at once: the
// recomputations of the totals first, then the index builds, those on the recomputed tables
// last, so that they are built over the final rows.
func completeUpkeep(ctx context.Context, bdb *bun.DB) error {
	names, err := indexesToRestore(ctx, bdb)
	if err != nil {
		return err
	}
	var jobs []func() error
	for _, name := range names {
		jobs = append(jobs, func() error { return restoreIndex(ctx, bdb, name) })
	}
	return withDeferredTotals(ctx, bdb, func(recomputes []func() error) error {
		return eachAtOnce(append(recomputes, jobs...), restoreWorkers, func(job func() error) error { return job() })
	})
}

// restoreWorkers is how many indexes are built (or tables analyzed) at once: each is mostly
// one backend reading a table.
const restoreWorkers = 2

// indexesToRestore names the indexes to build, those on the tables that the recomputations of
// the totals fill last (an index's name starts with its table's).
func indexesToRestore(ctx context.Context, bdb *bun.DB) ([]string, error) {
	// Before the migration that creates the table there is nothing to restore.
	var exists bool
	if err := bdb.QueryRowContext(ctx, "SELECT to_regclass('deferred_indexes') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return nil, err
	}
	var names []string
	if err := bdb.NewRaw("SELECT name FROM deferred_indexes ORDER BY name").Scan(ctx, &names); err != nil {
		return nil, err
	}
	var first, last []string
	for _, name := range names {
		if slices.ContainsFunc(totalsRecomputes, func(r totalsRecompute) bool {
			return slices.ContainsFunc(r.tables, func(t string) bool { return strings.HasPrefix(name, t+"_") })
		}) {
			last = append(last, name)
		} else {
			first = append(first, name)
		}
	}
	return append(first, last...), nil
}

// eachAtOnce calls fn for every item, on up to n items at once, up to the first error of each
// of the n.
func eachAtOnce[T any](items []T, n int, fn func(T) error) error {
	next := make(chan T)
	errs := make(chan error, n)
	for range n {
		go func() {
			var err error
			for item := range next {
				if err == nil {
					err = fn(item)
				}
			}
			errs <- err
		}()
	}
	for _, item := range items {
		next <- item
	}
	close(next)
	var all []error
	for range n {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

func restoreIndex(ctx context.Context, bdb *bun.DB, name string) error {
	return bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var defs []string
		// A concurrent restore may have built it: then there is no row left.
		if err := tx.NewRaw("DELETE FROM deferred_indexes WHERE name = ? RETURNING definition", name).Scan(ctx, &defs); err != nil || len(defs) == 0 {
			return err
		}
		// Sorting the table's rows is most of the time; give it memory.
		if _, err := tx.ExecContext(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, defs[0]); err != nil {
			return fmt.Errorf("restore index %s: %w", name, err)
		}
		return nil
	})
}
