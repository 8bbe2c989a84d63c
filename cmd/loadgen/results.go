package main

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/bench"
)

// The sections of the results file: the fixed head with the reference's figures, the latest
// run, and the run before it.
const (
	latestHeading   = "## Latest run"
	previousHeading = "## Previous run"
)

// resultsHead opens the results file: how the figures are made and the reference API's figures
// for the same reads on the same kind of machine and chain.
const resultsHead = `# Load benchmark

Written by ` + "`make loadtest`" + ` (cmd/loadgen mixes): ` + "`stxgraph serve`" + ` on the benchmark chain's database
(loadgen prepare; by default 3,001 blocks, 183,002 transactions, 10,000 accounts, the busiest
in 50,314 transfers), loaded from 32 keep-alive connections on loopback; the load generator, the server
and PostgreSQL share the machine's cores.

The traffic is two mixes shaped like a wallet's and an explorer's (cmd/loadgen/mix.go): each
request draws a read by its weight, then the read's parameters over the whole chain with a
seeded generator: accounts by popularity (Zipf: the busiest account takes about 2% of the
draws and a quarter fall beyond the thousandth account), blocks, transaction ids and offsets
uniformly; a read's name shows its parameters in braces. The REST paths are under
/extended/v1.

- Mixes: each on a freshly started server with its answer cache, which keeps answers per chain
  state, so that a repeated read is served from memory; the figures include the server's first
  seconds, while its connections open and the cache fills. Each mix runs three times (-runs),
  each on a new server; the table shows the run of median rate, and the rates of all follow it.
- First computation: each read of the mixes alone on a server started with
  ` + "`--answer-cache-bytes 0`" + `, i.e. what the read costs the first time at a chain state.
- server CPU and PostgreSQL CPU: user and system CPU time per request, of the server process and
  of the PostgreSQL backends serving the chain database (the cluster's background work left out),
  from /proc; sql/req:
  the server's SQL statements per request (stxgraph_sql_statements_total).
- × pgbench -S: req/s over the rate of ` + "`pgbench -S -c 32 -j 2`" + ` (one primary-key lookup per
  transaction, scale 10) measured in the same run: the server against PostgreSQL answering
  one statement per request.
- × reference: req/s over the reference API's on the same kind of machine, measured on another
  day (bench/REFERENCE.md): 136 req/s for /stx of a different account each request, 72 for
  /block?limit=20, and 270–285 (taken as 278) for a diverse REST mix.

Requests still running when a run's time is up are neither timed nor counted as errors; a
GraphQL answer with errors counts as an error. Other work on the machine moves the figures: the
run waits (up to two minutes) for its 1-minute load average to fall to 1 (-quiet-load), and notes
the load average it started at.

## Reference figures and targets

The targets were set from the reference API v8.13.6 on another 2-core machine (one that ran it
2.4–5.4× faster than this kind does, bench/REFERENCE.md), on a synthetic chain of 3,000
blocks, 182,941 transactions and one account in 50,428 transfers, ` + "`wrk -t2 -c32`" + `, one path
at a time (` + "`make loadtest-paths`" + ` measures these paths alone):

| read | reference req/s | target req/s |
|---|---|---|
| /stx busiest account | 36–40 | ≥ 5,000, p99 < 10 ms |
| /stx idle account | 776 | ≥ 10,000 |
| /stx of a different account each request | 738 | ≥ 5,000 |
| /stx?until_block busiest account | 41–46 | ≥ 5,000 |
| transactions_with_transfers?limit=20 busiest | 1–1.5 | ≥ 2,000, p99 < 20 ms |
| the same at offset=20000 | 1 | ≥ 2,000 |
| tx/events?address= busiest | 3–5 | ≥ 2,000 |
| /block?limit=20 | 170–210 | ≥ 2,000 |
| GraphQL front page (20 blocks × 20 txs × events) | – | ≥ 1,000, p99 < 50 ms |
| GraphQL busiest account: balance + 20 txs with totalCount | – | ≥ 3,000 |
`

// writeResults writes run, the Markdown of one run, as the latest run of the results file at
// path, the former latest run becoming the previous one.
func writeResults(path, run string) error {
	previous := ""
	if b, err := os.ReadFile(path); err == nil {
		s := string(b)
		if i := strings.Index(s, latestHeading); i >= 0 {
			run := s[i+len(latestHeading):]
			if j := strings.Index(run, previousHeading); j >= 0 {
				run = run[:j]
			}
			previous = previousHeading + strings.TrimRight(run, "\n") + "\n"
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	var b strings.Builder
	b.WriteString(resultsHead)
	b.WriteString("\n" + latestHeading + "\n\n" + strings.TrimRight(run, "\n") + "\n")
	if previous != "" {
		b.WriteString("\n" + previous)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// runLine opens a run's Markdown: when, how, and the machine's load average before it.
func runLine(conns int, d time.Duration, each, loadAvg, note string) string {
	if note != "" {
		note = " " + note + "."
	}
	return fmt.Sprintf("%s, %d connections, %s %s, load average before the run %s.%s\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), conns, d, each, loadAvg, note)
}

// markdown is a run of paths as a Markdown table.
func (r *result) markdown(conns int, d time.Duration, loadAvg, note string) string {
	var b strings.Builder
	b.WriteString(runLine(conns, d, "per path", loadAvg, note))
	b.WriteString("\n| path | requests | req/s | p50 ms | p99 ms | errors | sql/req |\n|---|---|---|---|---|---|---|\n")
	for _, p := range r.paths {
		label, path := "", p.path
		if rest, ok := strings.CutPrefix(path, uncachedLabel); ok {
			label, path = uncachedLabel, rest
		}
		fmt.Fprintf(&b, "| %s`%s` | %d | %.0f | %s | %s | %d | %s |\n", label, shortPath(path), len(p.latencies),
			float64(len(p.latencies))/p.elapsed.Seconds(), ms(p.latencies, 50), ms(p.latencies, 99), p.errors, perRequest(p.statements))
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(&b, "\nPeak RSS of the server: %d MB.\n", r.peakRSS/1024)
	}
	return b.String()
}

// ms is the q-th percentile of sorted latencies in milliseconds.
func ms(sorted []time.Duration, q float64) string {
	return fmt.Sprintf("%.2f", bench.Percentile(sorted, q).Seconds()*1000)
}

// shortPath keeps a table cell readable: a GraphQL query is named by its first words.
func shortPath(p string) string {
	if u, err := url.QueryUnescape(p); err == nil {
		p = u
	}
	p = strings.ReplaceAll(p, "|", "\\|")
	if len(p) > 110 {
		return p[:107] + "…"
	}
	return p
}

// loadAverage is the machine's 1-minute load average, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
