package chainwrite_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Replayed request-log rows keep their ids, times, paths and payloads, whatever characters the
// payloads' strings hold.
func TestReplayedRequestsStoredAsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	at := time.Date(2024, 3, 1, 12, 30, 45, 123456000, time.UTC)
	payloads := []string{
		`{"a": "quote ' and \" and backslash \\ and \\n and tab\t", "b": [1, 2.5, null, true]}`,
		"{\n\t\"unicode\": \"\u00e9\u4e2d \\u00e9\", \"path\": \"C:\\\\dir\\\\\"\n}",
	}
	err := chainwrite.NewStore(store).Ingest(ctx, at, chainwrite.IngestOptions{Relaxed: true}, func(ctx context.Context, w *chainwrite.Writer) error {
		for i, p := range payloads {
			id := int64(10 + i)
			if ok, err := w.LogRequest(ctx, &id, "/new_block\tx", json.RawMessage(p)); err != nil || !ok {
				t.Fatalf("LogRequest %d: ok %v, err %v", id, ok, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range payloads {
		var same bool
		var path string
		var ts time.Time
		if err := store.DB.QueryRowContext(ctx, "SELECT payload = ?::jsonb, event_path, receive_timestamp FROM event_observer_requests WHERE id = ?",
			p, 10+i).Scan(&same, &path, &ts); err != nil {
			t.Fatal(err)
		}
		if !same || path != "/new_block\tx" || !ts.Equal(at) {
			t.Errorf("request %d: payload equal %v, path %q, time %v", 10+i, same, path, ts)
		}
	}
}

// After a bulk load the chain tables and the one-row state tables every balance read joins are
// vacuumed (their pages all visible, for index-only scans) and have planner statistics.
func TestVacuumChainData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	if err := store.VacuumChainData(ctx); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"chain_tip", "pox_state", "txs", "principal_txs"} {
		var analyzed, vacuumed bool
		if err := store.DB.QueryRowContext(ctx, `SELECT last_analyze IS NOT NULL, last_vacuum IS NOT NULL
			FROM pg_stat_user_tables WHERE relname = ?`, table).Scan(&analyzed, &vacuumed); err != nil {
			t.Fatal(err)
		}
		if !analyzed || !vacuumed {
			t.Errorf("%s: analyzed %v, vacuumed %v; want both", table, analyzed, vacuumed)
		}
	}
}
