package main

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The report has the mixes first, then each read alone, with the rates over pgbench's and the
// reference's where the reference has a figure; a figure not measured reads "-".
func TestReportMarkdown(t *testing.T) {
	t.Parallel()
	ms := func(n int, d time.Duration) []time.Duration {
		l := make([]time.Duration, n)
		for i := range l {
			l[i] = d
		}
		return l
	}
	r := &report{conns: 32, duration: time.Second, loadAvg: "1.5", pgbench: 5560, uncachedRSS: 3 << 10,
		mixes: []*measurement{
			{name: "REST mix", elapsed: time.Second, latencies: ms(556, time.Millisecond), errors: 4,
				serverCPU: 560 * time.Millisecond, postgresCPU: 280 * time.Millisecond, statements: 1120, peakRSS: 2 << 10,
				runRates: []float64{612.4, 556, 301}},
			{name: "GraphQL mix", elapsed: time.Second, latencies: ms(100, 2*time.Millisecond), statements: -1, postgresCPU: -1,
				firstErr: "GraphQL account page: HTTP 200, GraphQL errors: boom"},
		},
		reads: []*measurement{{name: "/address/{account}/stx", weight: 30, elapsed: 2 * time.Second,
			latencies: ms(2720, 3*time.Millisecond), statements: 2720}},
	}
	md := r.markdown("build x")
	mixes, reads := strings.Index(md, "### Mixes"), strings.Index(md, "### Each read alone")
	if mixes < 0 || reads < mixes {
		t.Fatalf("sections missing or out of order:\n%s", md)
	}
	for _, want := range []string{
		"32 connections, 1s per run, load average before the run 1.5. build x.",
		"5560 tps",
		"| REST mix | 556 | 556 | 1.00 | 1.00 | 4 | 1.00 | 0.50 | 2.0 | 0.10 | 2.00 |",
		"| GraphQL mix | 100 | 100 | 2.00 | 2.00 | 0 | 0.00 | - | - | 0.018 | – |",
		"| `/address/{account}/stx` | 30% | 2720 | 1360 | 3.00 | 3.00 | 0 | 0.00 | 0.00 | 1.0 | 0.24 | 10 |",
		"REST mix 2 MB, GraphQL mix 0 MB; the one keeping no answers 3 MB",
		"First error of GraphQL mix: GraphQL account page: HTTP 200, GraphQL errors: boom",
		"REST mix: 3 runs, 612, 556, 301 req/s; the table shows the median one.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// A mix measured several times is reported by its run of median rate, which keeps the rates of
// all in the order they ran.
func TestMedianRun(t *testing.T) {
	t.Parallel()
	run := func(n int) *measurement {
		return &measurement{elapsed: time.Second, latencies: make([]time.Duration, n)}
	}
	for _, c := range []struct {
		counts []int
		median int
	}{{[]int{300}, 0}, {[]int{900, 300, 600}, 2}, {[]int{300, 900, 600, 800}, 2}} {
		all := make([]*measurement, len(c.counts))
		for i, n := range c.counts {
			all[i] = run(n)
		}
		m := medianRun(all)
		if m != all[c.median] {
			t.Errorf("%v: the median run is the one of %.0f req/s, want %d", c.counts, m.rate(), c.counts[c.median])
		}
		for i, n := range c.counts {
			if m.runRates[i] != float64(n) {
				t.Errorf("%v: rates %v, not in run order", c.counts, m.runRates)
				break
			}
		}
	}
}

// Waiting for a quiet machine ends by the deadline however busy the machine stays, and at once
// when it is quiet enough (no machine's load average is below zero, or above a million).
func TestWaitQuiet(t *testing.T) {
	t.Parallel()
	began := time.Now()
	if err := waitQuiet(context.Background(), 1e6, time.Minute, io.Discard); err != nil || time.Since(began) > time.Second {
		t.Errorf("a quiet machine was waited for %s (%v)", time.Since(began), err)
	}
	var progress strings.Builder
	began = time.Now()
	if err := waitQuiet(context.Background(), -1, 200*time.Millisecond, &progress); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(began); waited < 200*time.Millisecond || waited > 5*time.Second {
		t.Errorf("a busy machine was waited for %s, want the 200ms allowed", waited)
	}
	if !strings.Contains(progress.String(), "waiting for the machine to quieten") {
		t.Errorf("the wait was not reported: %q", progress.String())
	}
}

// A server that cannot start is reported at once: a taken port, or a binary that ends.
func TestServerStartFails(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	o := serverOptions{bin: "false", log: t.TempDir() + "/server.log", port: taken}
	if _, err := o.start(context.Background(), true); err == nil || !strings.Contains(err.Error(), "port "+strconv.Itoa(taken)) {
		t.Errorf("start on a taken port: %v", err)
	}
	l.Close()
	began := time.Now()
	if _, err := o.start(context.Background(), false); err == nil || !strings.Contains(err.Error(), "ended before answering") {
		t.Errorf("start of a binary that ends: %v", err)
	}
	if time.Since(began) > 10*time.Second {
		t.Error("a server that ended was waited for")
	}
}
