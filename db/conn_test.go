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
	dbtest.AwaitNoLockWaits(t, tx, 10*time.Second)
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
