package main

import (
	"context"
	"database/sql"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/db"
)

// A `stxgraph migrate up` killed with SIGKILL while it migrates leaves the database usable: the
// next start takes the migration lock and applies every migration.
func TestMigrateSurvivesKill(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := emptyDatabase(t)

	// Create the migration tables, then hold an exclusive lock on the applied-migrations table so
	// that the child blocks inside its migration, after taking the migration lock.
	store := db.Open(url, db.PoolOptions{MaxOpen: 4})
	defer store.Close()
	if _, err := store.Status(ctx); err != nil {
		t.Fatal(err)
	}
	blocker, err := store.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blocker.ExecContext(ctx, "LOCK TABLE bun_migrations IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	child := stxgraphCommand(ctx, "migrate", "up", "--database-url", url)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	stats := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(url)))
	defer stats.Close()
	waitFor(t, time.Minute, "the child to block mid-migration", func() bool {
		var n int
		err := stats.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%bun_migrations%'`).Scan(&n)
		return err == nil && n > 0
	})
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait() //nolint:errcheck // killed on purpose
	if err := blocker.Rollback(); err != nil {
		t.Fatal(err)
	}

	out, err := stxgraphCommand(ctx, "migrate", "up", "--database-url", url).CombinedOutput()
	if err != nil {
		t.Fatalf("migrate up after a killed migration: %v\n%s", err, trimOutput(out))
	}
	if !strings.Contains(string(out), "applied") || strings.Contains(string(out), "applied 0 ") {
		t.Fatalf("migrate up after a killed migration applied nothing: %s", trimOutput(out))
	}
	status, err := store.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range status {
		if !s.Applied {
			t.Errorf("migration %s still pending", s.Name)
		}
	}
}
