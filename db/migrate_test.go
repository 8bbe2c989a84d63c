package db_test

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Migrations go down and up again cleanly, and the schema holds the tables later layers use.
func TestMigrationsDownAndUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()

	for round := 0; round < 2; round++ {
		reverted, err := store.Rollback(ctx)
		if err != nil {
			t.Fatalf("round %d rollback: %v", round, err)
		}
		if len(reverted) == 0 {
			t.Fatalf("round %d: rollback reverted nothing", round)
		}
		if n := countTables(t, store, "blocks"); n != 0 {
			t.Fatalf("round %d: blocks table still exists after rollback", round)
		}
		applied, err := store.Migrate(ctx)
		if err != nil {
			t.Fatalf("round %d migrate: %v", round, err)
		}
		if len(applied) != len(reverted) {
			t.Fatalf("round %d: applied %v, reverted %v", round, applied, reverted)
		}
	}
	for _, table := range []string{"blocks", "txs", "mempool_txs", "stx_events", "ft_events", "nft_events",
		"contract_logs", "stx_lock_events", "miner_rewards", "smart_contracts", "chain_tip", "pox_state",
		"event_observer_requests", "faucet_requests", "brc20_tokens", "brc20_balances", "brc20_operations"} {
		if countTables(t, store, table) != 1 {
			t.Errorf("table %s missing after migrate", table)
		}
	}
	status, err := store.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range status {
		if !s.Applied {
			t.Errorf("migration %s not applied", s.Name)
		}
	}
}

func countTables(t *testing.T, store *db.Store, name string) int {
	t.Helper()
	var n int
	err := store.DB.NewSelect().TableExpr("information_schema.tables").ColumnExpr("count(*)").
		Where("table_schema = 'public' AND table_name = ?", name).Scan(context.Background(), &n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A lock row that an older version left in bun's lock table when it was killed does not stop
// migrations.
func TestMigrateIgnoresStaleLockRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	if _, err := store.DB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bun_migration_locks (
		id bigserial PRIMARY KEY, table_name varchar UNIQUE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.ExecContext(ctx, "INSERT INTO bun_migration_locks (table_name) VALUES ('bun_migrations')"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Rollback(ctx); err != nil {
		t.Fatalf("rollback with a stale lock row: %v", err)
	}
	applied, err := store.Migrate(ctx)
	if err != nil {
		t.Fatalf("migrate with a stale lock row: %v", err)
	}
	if len(applied) == 0 {
		t.Fatal("migrate applied nothing after the rollback")
	}
}
