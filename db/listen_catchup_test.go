package db_test

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
	if _, err := tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", db.EventsChannel, string(payload)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A subscriber misses no block when the listener's connection is lost: blocks committed while it
// was down are read from the database once it is back, each announced once and in order. The
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
	next := func() db.Notice {
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
		return db.Notice{}
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
	before := dbtest.AwaitVersion(t, l, func(v db.StateVersion) bool { return !v.Live })
	commitBlock(t, ctx, conn, store, 2)
	commitBlock(t, ctx, conn, store, 3)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q CONNECTION LIMIT -1`, dbName)); err != nil {
		t.Fatal(err)
	}
	// Block 4 is announced once the listener is back: wait for a notice and keep announcing
	// blocks until it is heard, as a live chain would.
	for h := 2; h <= 4; h++ {
		if h == 4 {
			commitBlock(t, ctx, conn, store, 4)
		}
		if n := next(); n.Kind != db.NoticeBlock || int(n.BlockHeight) != h {
			t.Fatalf("notice %d is %s at height %d; want the block at height %d", h, n.Kind, n.BlockHeight, h)
		}
	}
	select {
	case n := <-sub:
		t.Fatalf("unexpected extra notice %+v", n)
	case <-time.After(200 * time.Millisecond):
	}
	after := dbtest.AwaitVersion(t, l, func(v db.StateVersion) bool { return v.Live && v.Chain > before.Chain })
	if after.Mempool <= before.Mempool || after.Brc20 <= before.Brc20 {
		t.Errorf("after a lost connection only the chain's version moved: %+v then %+v", before, after)
	}
}
