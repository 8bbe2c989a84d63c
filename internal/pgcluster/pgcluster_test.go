package pgcluster_test

import (
	"database/sql"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/internal/pgcluster"
)

// The cluster answers, refuses connections while stopped, and answers again after a restart.
func TestStopAndRestart(t *testing.T) {
	t.Parallel()
	c := pgcluster.Start(t)
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(c.URL("postgres"))))
	defer sqldb.Close()
	one := func() error {
		var n int
		return sqldb.QueryRow("SELECT 1").Scan(&n)
	}
	if err := one(); err != nil {
		t.Fatal(err)
	}
	c.Stop(t)
	if err := one(); err == nil {
		t.Fatal("a stopped cluster answered")
	}
	c.Restart(t)
	var err error
	for range 3 { // the pool may hand out a connection that died with the old server first
		if err = one(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
}
