package chainwrite_test

import (
	"context"
	"encoding/json"
	"strings"
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

// Replayed request-log ids ascend: an id up to the highest logged is skipped as applied before
// (a replay run again, an id repeated in a log), but one below an id the same transaction
// logged fails the message, as it cannot have been applied and skipping it would lose it.
func TestReplayedRequestIDsAscend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	log := func(w *chainwrite.Writer, id int64) (bool, error) {
		return w.LogRequest(ctx, &id, "/new_burn_block", json.RawMessage(`{}`))
	}
	ingest := func(fn func(ctx context.Context, w *chainwrite.Writer) error) error {
		return chainwrite.NewStore(store).Ingest(ctx, time.Now(), chainwrite.IngestOptions{Relaxed: true}, fn)
	}
	if err := ingest(func(ctx context.Context, w *chainwrite.Writer) error {
		for _, c := range []struct {
			id    int64
			fresh bool
		}{{5, true}, {5, false}, {7, true}} {
			if fresh, err := log(w, c.id); err != nil || fresh != c.fresh {
				t.Errorf("id %d: fresh %v, err %v; want fresh %v", c.id, fresh, err, c.fresh)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A replay run again: ids up to 7 were applied before, whatever their order.
	if err := ingest(func(ctx context.Context, w *chainwrite.Writer) error {
		for _, id := range []int64{6, 7, 5} {
			if fresh, err := log(w, id); err != nil || fresh {
				t.Errorf("id %d logged before: fresh %v, err %v; want a skip", id, fresh, err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	err := ingest(func(ctx context.Context, w *chainwrite.Writer) error {
		if fresh, err := log(w, 9); err != nil || !fresh {
			t.Errorf("id 9: fresh %v, err %v", fresh, err)
		}
		_, err := log(w, 8)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "id 8 follows id 9") {
		t.Errorf("id 8 after 9: error %v, want one naming both", err)
	}
	// The live observer's next row comes after the replayed ones.
	if err := ingest(func(ctx context.Context, w *chainwrite.Writer) error {
		_, err := w.LogRequest(ctx, nil, "/new_burn_block", json.RawMessage(`{}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := store.DB.NewRaw("SELECT id FROM event_observer_requests ORDER BY id").Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] != 5 || ids[1] != 7 || ids[2] != 8 {
		t.Errorf("logged ids %v, want [5 7 8]: the failed message logs nothing, the live one follows", ids)
	}
}
