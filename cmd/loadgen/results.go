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

Written by ` + "`make loadtest`" + ` (cmd/loadgen): ` + "`stxgraph serve`" + ` on the benchmark chain's database
(loadgen prepare), each path alone from 32 keep-alive connections on loopback, sharing the
machine's cores with the load generator. sql/req is the server's SQL statements per request
(stxgraph_sql_statements_total); the machine's load average is noted, since other work on it
moves the figures. Requests still running when a path's time is up are neither timed nor
counted as errors: a path with no requests completed none within its time. The server keeps
answers per chain state (the answer cache), so a repeated read is served from memory; the rows
marked "(no answer cache)" measure the same kinds of reads on a second server started with
` + "`--answer-cache-bytes 0`" + `, i.e. what a read costs the first time at a chain state.

## Reference figures

The reference API v8.13.6 on a 2-core machine, on a synthetic chain of 3,000 blocks, 182,941
transactions and one account in 50,428 transfers, ` + "`wrk -t2 -c32`" + `, one path at a time:

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

// writeResults writes r as the latest run of the results file at path, the former latest run
// becoming the previous one.
func writeResults(path string, r *result, conns int, d time.Duration, note string) error {
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
	if note != "" {
		note = " " + note + "."
	}
	fmt.Fprintf(&b, "\n%s\n\n%s, %d connections, %s per path, load average before the run %s.%s\n\n",
		latestHeading, time.Now().UTC().Format("2006-01-02 15:04 MST"), conns, d, loadAverage(), note)
	b.WriteString("| path | requests | req/s | p50 ms | p99 ms | errors | sql/req |\n|---|---|---|---|---|---|---|\n")
	for _, p := range r.paths {
		ms := func(q float64) string { return fmt.Sprintf("%.2f", bench.Percentile(p.latencies, q).Seconds()*1000) }
		label, path := "", p.path
		if rest, ok := strings.CutPrefix(path, uncachedLabel); ok {
			label, path = uncachedLabel, rest
		}
		fmt.Fprintf(&b, "| %s`%s` | %d | %.0f | %s | %s | %d | %s |\n", label, shortPath(path), len(p.latencies),
			float64(len(p.latencies))/p.elapsed.Seconds(), ms(50), ms(99), p.errors, perRequest(p.statements))
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(&b, "\nPeak RSS of the server: %d MB.\n", r.peakRSS/1024)
	}
	if previous != "" {
		b.WriteString("\n" + previous)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
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
