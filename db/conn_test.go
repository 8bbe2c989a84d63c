package db_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A prepared read cut off by its caller's deadline while PostgreSQL still runs it must leave
// nothing behind: the statement ends in the server, and the pool's one connection does not
// hand the cut-off answer to the next read.
func TestCutOffPreparedReadLeavesNoStatementBehind(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	store := db.Open(url, db.PoolOptions{MaxOpen: 1})
	defer store.Close()
	locker := db.Open(url, db.PoolOptions{MaxOpen: 1})
	defer locker.Close()
	ctx := context.Background()
	want, err := store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}

	tx, err := locker.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // released below
	if _, err := tx.ExecContext(ctx, "LOCK TABLE chain_tip IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := store.ChainTip(short); err == nil {
		t.Fatal("the read finished although its table was locked")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d statements still wait in PostgreSQL after their caller gave up", waiting)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := store.ChainTip(ctx)
		if err != nil {
			t.Fatalf("the read after the cut-off one: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tip %+v, want %+v", got, want)
		}
	}
}
