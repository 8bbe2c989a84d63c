package dbtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/internal/pgproc"
)

// Cluster is a PostgreSQL server a test started in a directory of its own.
type Cluster = pgproc.Cluster

// StartReplicated starts a new primary cluster and a streaming replica of it made with
// pg_basebackup, each on a free loopback port, and stops and removes both when tb ends. Without
// PostgreSQL's server binaries it skips, except under CI=true, where it fails. The servers
// refuse to run as root, so as root they run as the postgres OS user.
func StartReplicated(tb testing.TB) (primary, replica *Cluster) {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(pgproc.BinDir(), "initdb")); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL server binaries are missing (CI=true requires them; make postgres installs them): %v", err)
		}
		tb.Skipf("PostgreSQL server binaries are missing at %s (set PG_BINDIR): %v", pgproc.BinDir(), err)
	}
	root, err := pgproc.Root("stxgraph-replication-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(root) })
	primary, err = pgproc.StartPrimary(root, "primary")
	if err != nil {
		tb.Fatal(err)
	}
	stopWhenDone(tb, primary)
	replica, err = primary.StartReplica("replica")
	if err != nil {
		tb.Fatal(err)
	}
	stopWhenDone(tb, replica)
	return primary, replica
}

// stopWhenDone stops the cluster when tb ends, logging its server log when tb failed.
func stopWhenDone(tb testing.TB, c *Cluster) {
	tb.Cleanup(func() {
		if tb.Failed() {
			if b, err := os.ReadFile(c.Log); err == nil {
				tb.Logf("%s log:\n%s", filepath.Base(c.Dir), b)
			}
		}
		if err := c.Stop(); err != nil {
			tb.Error(err)
		}
	})
}
