package db_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// EnsureDatabase creates a missing database and leaves an existing one alone.
func TestEnsureDatabaseCreatesMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := dbtest.Config()
	name := fmt.Sprintf("stxgraph_ensure_%d_%d", os.Getpid(), time.Now().UnixNano())
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: cfg.Host + ":" + cfg.Port, Path: "/" + name, RawQuery: "sslmode=disable"}
	admin := db.Open((&url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: u.Host, Path: "/postgres", RawQuery: "sslmode=disable"}).String(), db.PoolOptions{})
	// Cleanups run after the test's defers: the drop needs the admin connection still open.
	t.Cleanup(func() {
		if _, err := admin.DB.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		admin.Close()
	})

	for i := 0; i < 2; i++ { // the second call finds it and does nothing
		if err := db.EnsureDatabase(ctx, u.String()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	var n int
	if err := admin.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("database %s exists %d times, want 1", name, n)
	}
	if err := db.EnsureDatabase(ctx, "postgres://127.0.0.1:1/x?sslmode=disable"); err == nil {
		t.Error("EnsureDatabase against a closed port succeeded")
	}
}
