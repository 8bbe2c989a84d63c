package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// readCommand loads one of the mixes, or one read of it, on a server already running (its
// answer cache on or off, its profiler open), and prints the rate, the latency and the CPU per
// request: the load benchmark's measure, for comparing two builds read by read or profiling one.
func readCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	base := fs.String("url", "http://127.0.0.1:3998", "base URL of the running stxgraph API")
	pid := fs.Int("pid", 0, "process id of the server, for its CPU time (0: not reported)")
	which := fs.String("mix", "rest", "the mix: rest or graphql")
	only := fs.Int("only", -1, "load this read of the mix alone, by its index in mix.go (-1: the whole mix)")
	lo := mixLoad(fs, 8*time.Second, "the load")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dsn, err := chainDB(ctx, *o, false, stderr)
	if err != nil {
		return err
	}
	chain, err := loadChain(ctx, dsn, *o)
	if err != nil {
		return err
	}
	srv := &server{cmd: &exec.Cmd{}, base: *base, database: databaseName(dsn)}
	if *pid > 0 {
		if srv.cmd.Process, err = os.FindProcess(*pid); err != nil {
			return err
		}
	}
	m, err := readLoad(ctx, chain, *which, *only, *lo, srv, stderr)
	if err != nil {
		return err
	}
	n := float64(max(1, len(m.latencies)+m.errors))
	pg := fmt.Sprintf("%.2f ms", float64(m.postgresCPU.Microseconds())/1000/n)
	if m.postgresCPU < 0 {
		pg = "unknown (no backend serves " + srv.database + ", the chain's database for these flags)"
	}
	_, err = fmt.Fprintf(stdout, "%s: %.0f req/s, p50 %s ms, p99 %s ms, %d errors, server CPU %.2f ms, PostgreSQL CPU %s, %.2f statements per request\n",
		m.name, m.rate(), ms(m.latencies, 50), ms(m.latencies, 99), m.errors,
		float64(m.serverCPU.Microseconds())/1000/n, pg, m.statements/n)
	return err
}

// readLoad measures mix which of chain, or its read only alone, on srv.
func readLoad(ctx context.Context, chain *chainParams, which string, only int, lo loadOptions, srv *server, progress io.Writer) (*measurement, error) {
	var m *mix
	switch which {
	case "rest":
		m = restMix(chain)
	case "graphql":
		m = graphqlMix(chain)
	default:
		return nil, fmt.Errorf("read: -mix %q is neither rest nor graphql", which)
	}
	if only >= len(m.reads) {
		return nil, fmt.Errorf("read: the %s mix has %d reads, numbered from 0", which, len(m.reads))
	}
	if only >= 0 {
		m = m.only(only)
	}
	if err := lo.check("read"); err != nil {
		return nil, err
	}
	lo.mix = m
	return measure(ctx, lo, srv, progress), nil
}
