package notices_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
)

func testHash(parts ...any) []byte {
	h := sha256.Sum256(fmt.Append(nil, parts...))
	return h[:]
}

// commitBlock stores a canonical block at height, moves the tip and announces it as ingestion
// does, in one transaction on conn.
func commitBlock(t *testing.T, ctx context.Context, conn *sql.Conn, store *db.Store, height int) {
	t.Helper()
	b := &db.Block{IndexBlockHash: testHash("ibh", height), BlockHash: testHash("bh", height), BlockHeight: int32(height),
		ParentIndexBlockHash: testHash("ibh", height-1), ParentBlockHash: testHash("bh", height-1), ParentMicroblockHash: []byte{},
		ParentMicroblockSequence: -1, BurnBlockHash: testHash("burn", height), BurnBlockHeight: int32(100 + height),
		BurnBlockTime: int64(1_600_000_000 + height), ParentBurnBlockHash: testHash("burn", height-1),
		BlockTime: int64(1_600_000_000 + height), MinerTxid: testHash("miner", height), Canonical: true}
	payload, _ := json.Marshal(map[string]any{"kind": "block", "index_block_hash": db.Hex(b.IndexBlockHash), "block_height": height, "canonical": true})
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	if _, err := store.DB.NewInsert().Conn(tx).Model(b).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE chain_tip SET block_height = $1", height); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO notices (channel, payload) VALUES ($1, $2)", notices.EventsChannel, string(payload)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// logNotice commits a notice to the notice log, as ingestion does.
func logNotice(t *testing.T, ctx context.Context, conn *sql.Conn, channel, payload string) {
	t.Helper()
	if _, err := conn.ExecContext(ctx, "INSERT INTO notices (channel, payload) VALUES ($1, $2)", channel, payload); err != nil {
		t.Fatal(err)
	}
}

// A subscriber misses no notice when the listener's connection is lost: notices of every kind
// committed while it was down are read from the notice log once it is back, each announced once
// and in order. The
// chain state's version is not live from the loss until the catch-up is done, and then live at
// a version never used before.
func TestListenerCatchesUpAfterLostConnection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := dbtest.New(t)
	defer store.Close()
	conn, err := store.DB.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var dbName string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}

	l, err := store.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sub := l.Subscribe(ctx)
	next := func() notices.Notice {
		t.Helper()
		select {
		case n, ok := <-sub:
			if !ok {
				t.Fatal("subscription closed")
			}
			return n
		case <-ctx.Done():
			t.Fatal("no notice before the test's deadline")
		}
		return notices.Notice{}
	}

	commitBlock(t, ctx, conn, store, 1)
	if n := next(); n.BlockHeight != 1 {
		t.Fatalf("first notice is for height %d", n.BlockHeight)
	}
	// Keep the listener out while blocks 2 and 3 commit: refuse new connections to the
	// database, then end the listener's session.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q CONNECTION LIMIT 0`, dbName)); err != nil {
		t.Fatal(err)
	}
	var terminated bool
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) FROM pg_stat_activity
		WHERE datname = current_database() AND query ILIKE 'LISTEN%'`).Scan(&terminated); err != nil || !terminated {
		t.Fatalf("terminate the listener's session: %v (terminated %v)", err, terminated)
	}
	before := dbtest.AwaitVersion(t, l, func(v notices.StateVersion) bool { return !v.Live })
	// Every kind of notice committed meanwhile is caught up, in commit order.
	commitBlock(t, ctx, conn, store, 2)
	logNotice(t, ctx, conn, notices.EventsChannel, `{"kind":"microblock","block_height":3,"microblock_hashes":["0x01"]}`)
	logNotice(t, ctx, conn, notices.EventsChannel, `{"kind":"mempool","tx_ids":["0x02"]}`)
	logNotice(t, ctx, conn, notices.EventsChannel, `{"kind":"mempool_drop","tx_ids":["0x02"]}`)
	logNotice(t, ctx, conn, notices.Brc20Channel, `{"height":800000,"hash":"00ab","rollback":false,"tickers":["ordi"],"addresses":[],"truncated":false}`)
	commitBlock(t, ctx, conn, store, 3)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q CONNECTION LIMIT -1`, dbName)); err != nil {
		t.Fatal(err)
	}
	// Block 4 is committed once the listener is back.
	want := []string{"block 2", "microblock 3", "mempool 0", "mempool_drop 0", "brc20 800000", "block 3", "block 4"}
	for i, w := range want {
		if i == len(want)-1 {
			commitBlock(t, ctx, conn, store, 4)
		}
		if n := next(); fmt.Sprint(n.Kind, " ", n.BlockHeight) != w || n.Seq != int64(i+2) {
			t.Fatalf("notice %d is %s %d (number %d); want %s (number %d)", i, n.Kind, n.BlockHeight, n.Seq, w, i+2)
		}
	}
	select {
	case n := <-sub:
		t.Fatalf("unexpected extra notice %+v", n)
	case <-time.After(200 * time.Millisecond):
	}
	after := dbtest.AwaitVersion(t, l, func(v notices.StateVersion) bool { return v.Live && v.Chain > before.Chain })
	if after.Mempool <= before.Mempool || after.Brc20 <= before.Brc20 {
		t.Errorf("after a lost connection only the chain's version moved: %+v then %+v", before, after)
	}
}

// A notice heard after a gap in the numbers (notices committed that the listener never heard)
// comes after the missing ones, read from the notice log, each once and in order.
func TestListenerFillsAGapFromTheLog(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := dbtest.New(t)
	defer store.Close()
	conn, err := store.DB.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	l, err := store.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.AwaitVersion(t, l, func(v notices.StateVersion) bool { return v.Live })
	sub := l.Subscribe(ctx)
	// Two notices are logged without being sent (the trigger that sends them is off), then a
	// third is logged and sent.
	if _, err := conn.ExecContext(ctx, `ALTER TABLE notices DISABLE TRIGGER notices_send;
		INSERT INTO notices (seq, channel, payload) VALUES
			(1, 'stxgraph_events', '{"seq":1,"kind":"mempool","tx_ids":["0x01"]}'),
			(2, 'stxgraph_events', '{"seq":2,"kind":"mempool","tx_ids":["0x02"]}');
		ALTER TABLE notices ENABLE TRIGGER notices_send`); err != nil {
		t.Fatal(err)
	}
	logNotice(t, ctx, conn, notices.EventsChannel, `{"kind":"mempool","tx_ids":["0x03"]}`)
	for want := int64(1); want <= 3; want++ {
		select {
		case n := <-sub:
			if n.Seq != want || len(n.TxIDs) != 1 || n.TxIDs[0][0] != byte(want) {
				t.Fatalf("notice %+v, want number %d", n, want)
			}
		case <-ctx.Done():
			t.Fatalf("notice %d never came", want)
		}
	}
	select {
	case n := <-sub:
		t.Fatalf("unexpected extra notice %+v", n)
	case <-time.After(200 * time.Millisecond):
	}
}
