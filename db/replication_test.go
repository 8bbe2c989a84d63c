package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

func TestParseLSN(t *testing.T) {
	for _, s := range []string{"0/0", "16/B374D848", "FFFFFFFF/FFFFFFFF", "0/3000148"} {
		l, err := db.ParseLSN(s)
		if err != nil || l.String() != s {
			t.Errorf("ParseLSN(%q) = %v %v, want it back", s, l, err)
		}
	}
	if l, _ := db.ParseLSN("1/0"); l != 1<<32 {
		t.Errorf("1/0 = %d", l)
	}
	for _, s := range []string{"", "16", "x/1", "1/x", "100000000/0"} {
		if _, err := db.ParseLSN(s); err == nil {
			t.Errorf("ParseLSN(%q) accepted", s)
		}
	}
}

// A commit on the primary is visible on the replica once WaitReplayed returns for the position
// read after it, and the lag says what the replica has not replayed while replay is paused.
func TestReplicationWaitAndLag(t *testing.T) {
	t.Parallel()
	primaryC, replicaC := dbtest.StartReplicated(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	primary := db.Open(primaryC.URL("postgres"), db.PoolOptions{})
	defer primary.Close()
	replica := db.Open(replicaC.URL("postgres"), db.PoolOptions{})
	defer replica.Close()
	rep, err := db.NewReplication(ctx, primary, replica)
	if err != nil {
		t.Fatal(err)
	}
	other := dbtest.New(t)
	if _, err := db.NewReplication(ctx, primary, other); err == nil {
		t.Error("a database of another cluster was taken for a replica")
	}
	other.Close()
	missing := db.Open(replicaC.URL("not_created_yet"), db.PoolOptions{})
	if _, err := db.NewReplication(ctx, primary, missing); !db.IsMissingDatabase(err) {
		t.Errorf("a database missing on the replica: %v, want it reported as missing", err)
	}
	missing.Close()
	exec := func(s *db.Store, q string) {
		t.Helper()
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(primary, "CREATE TABLE marks (n int)")
	for n := 1; n <= 3; n++ {
		if n == 3 {
			exec(replica, "SELECT pg_wal_replay_pause()")
		}
		exec(primary, "INSERT INTO marks VALUES ("+string(rune('0'+n))+")")
		target, err := rep.CommittedLSN(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 3 {
			lag, err := rep.Lag(ctx)
			if err != nil || lag == nil || lag.Bytes <= 0 {
				t.Fatalf("lag with replay paused behind a commit = %+v %v, want bytes behind", lag, err)
			}
			short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
			if err := rep.WaitReplayed(short, target); err == nil {
				t.Fatal("WaitReplayed returned while replay is paused")
			}
			cancelShort()
			exec(replica, "SELECT pg_wal_replay_resume()")
		}
		if err := rep.WaitReplayed(ctx, target); err != nil {
			t.Fatal(err)
		}
		var max int
		if err := replica.DB.QueryRowContext(ctx, "SELECT max(n) FROM marks").Scan(&max); err != nil || max != n {
			t.Fatalf("after WaitReplayed the replica's newest mark = %d %v, want %d", max, err, n)
		}
	}
	if _, err := replica.DB.ExecContext(ctx, "INSERT INTO marks VALUES (9)"); err == nil {
		t.Error("the replica took a write")
	}
	lag, err := rep.Lag(ctx)
	if err != nil || lag == nil || lag.ReplayLSN == "" || lag.PrimaryLSN == "" {
		t.Errorf("lag = %+v %v", lag, err)
	}
	if self, err := db.NewReplication(ctx, primary, primary); err != nil {
		t.Error(err)
	} else if lag, err := self.Lag(ctx); lag != nil || err != nil {
		t.Errorf("lag of a primary read as a replica = %+v %v, want none", lag, err)
	}
}

// SchemaPending names the migrations a database lacks, and says when it has no schema at all,
// without writing (it runs on replicas).
func TestSchemaPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	pending, err := store.SchemaPending(ctx)
	if err != nil || len(pending) != 0 {
		t.Fatalf("migrated database: pending %v %v, want none", pending, err)
	}
	var last string
	if err := store.DB.QueryRowContext(ctx, "DELETE FROM bun_migrations WHERE id = (SELECT max(id) FROM bun_migrations) RETURNING name").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if pending, err := store.SchemaPending(ctx); err != nil || len(pending) != 1 || pending[0] != last {
		t.Errorf("without %s: pending %v %v", last, pending, err)
	}
	if _, err := store.DB.ExecContext(ctx, "DROP TABLE bun_migrations"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SchemaPending(ctx); err == nil || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("without a schema: %v", err)
	}
}
