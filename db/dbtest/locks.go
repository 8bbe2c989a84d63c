package dbtest

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// Querier runs a one-row query: a pooled handle or the transaction that holds a lock.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// AwaitNoLockWaits waits until no other session of q's database waits for a lock (the sessions
// whose statements were to end), and fails tb when some still do after within.
func AwaitNoLockWaits(tb testing.TB, q Querier, within time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		waiting := LockWaits(tb, q)
		if waiting == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d statements still wait for a lock in PostgreSQL after %s", waiting, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// LockWaits is how many other sessions of q's database wait for a lock now.
func LockWaits(tb testing.TB, q Querier) int {
	tb.Helper()
	var n int
	if err := q.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
