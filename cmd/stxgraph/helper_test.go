package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// envRunCommand makes the test binary run the stxgraph command line it is given instead of the
// tests, so that fault tests can kill a real stxgraph process.
const envRunCommand = "STXGRAPH_TEST_RUN_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(envRunCommand) == "1" {
		setupLogging()
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// stxgraphCommand returns an exec.Cmd that runs `stxgraph args…` in a child process.
func stxgraphCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), envRunCommand+"=1")
	return cmd
}

// emptyDatabase creates a database with no schema on the test server and returns its URL; it
// is dropped when the test ends.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	cfg := dbtest.Config()
	name := fmt.Sprintf("stxgraph_empty_%d", time.Now().UnixNano())
	base := fmt.Sprintf("postgres://%s:%s@%s:%s", cfg.User, cfg.Password, cfg.Host, cfg.Port)
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base + "/postgres?sslmode=disable")))
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") //nolint:errcheck // best effort
		admin.Close()
	})
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return base + "/" + name + "?sslmode=disable"
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func trimOutput(b []byte) string { return strings.TrimSpace(string(b)) }
