package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A migration waits for another process's migration lock as long as its context allows, not
// only the driver's read timeout: here a URL with read_timeout=1s waits 3 s for the lock.
func TestMigrateWaitsPastReadTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.URL(t) + "&read_timeout=1s"
	holder := db.Open(url, db.PoolOptions{MaxOpen: 1})
	defer holder.Close()
	conn, err := holder.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", db.MigrationLockKey); err != nil {
		t.Fatal(err)
	}
	release := time.AfterFunc(3*time.Second, func() {
		conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(?)", db.MigrationLockKey) //nolint:errcheck // Migrate's success checks it
	})
	defer release.Stop()

	store := db.Open(url, db.PoolOptions{MaxOpen: 2})
	defer store.Close()
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatalf("migrate while another session held the lock for 3 s: %v", err)
	}
}
