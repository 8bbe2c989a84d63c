package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stxgraph/stxgraph/bench"
)

// The pgbench database: scale 10 is 1,000,000 accounts rows, small enough to sit in memory as
// the chain's hot rows do, so that pgbench -S measures what PostgreSQL answers per second on
// this machine when every answer is one primary-key lookup: the ceiling of a server that would
// send one statement per request.
const (
	pgbenchDB    = "loadgen_pgbench"
	pgbenchScale = 10
)

// pgbenchCeiling runs pgbench -S from conns clients on 2 threads for d (whole seconds, at least
// one) and returns its transactions per second, initialising its database first if needed.
func pgbenchCeiling(ctx context.Context, conns int, d time.Duration) (float64, error) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		bin = "/usr/lib/postgresql/15/bin/pgbench" // Debian's, off PATH without postgresql-client
	}
	dsn, err := pgbenchDatabase(ctx, bin)
	if err != nil {
		return 0, err
	}
	secs := max(1, int(math.Ceil(d.Seconds())))
	out, err := exec.CommandContext(ctx, bin, "-S", "-n", "-c", strconv.Itoa(conns), "-j", "2",
		"-T", strconv.Itoa(secs), dsn).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench -S: %w: %s", err, out)
	}
	return parseTPS(string(out))
}

// pgbenchDatabase creates and initialises the pgbench database unless it is there already,
// and returns its URL.
func pgbenchDatabase(ctx context.Context, bin string) (string, error) {
	admin, u := *bench.ServerURL(), *bench.ServerURL()
	admin.Path, u.Path = "/postgres", "/"+pgbenchDB
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, pgbenchDB).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgbenchDB); err != nil {
			return "", err
		}
	}
	db, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return "", err
	}
	defer db.Close(ctx)
	// A complete initialisation has every row: one interrupted part-way is done again.
	var rows int
	if db.QueryRow(ctx, `SELECT count(*) FROM pgbench_accounts`).Scan(&rows) == nil && rows == pgbenchScale*100_000 {
		return u.String(), nil
	}
	if out, err := exec.CommandContext(ctx, bin, "-i", "-q", "-s", strconv.Itoa(pgbenchScale), u.String()).CombinedOutput(); err != nil {
		return "", fmt.Errorf("pgbench -i: %w: %s", err, out)
	}
	return u.String(), nil
}

// parseTPS reads the rate from pgbench's report ("tps = 41234.567890 (without initial
// connection time)").
func parseTPS(out string) (float64, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "tps = "); ok && len(strings.Fields(v)) > 0 {
			return strconv.ParseFloat(strings.Fields(v)[0], 64)
		}
	}
	return 0, errors.New("no tps in pgbench's output: " + out)
}
