package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/stxgraph/stxgraph/bench"
)

// loadOptions describe one load run: conns workers, each with its own keep-alive connection,
// request the paths round-robin, or draw the mix's reads, for the duration.
type loadOptions struct {
	base     string
	paths    []string
	mix      *mix
	seed     uint64 // of the workers' draws
	conns    int
	duration time.Duration
	timeout  time.Duration
	// accounts fill {account}: a different one at each request.
	accounts []string
}

// mixLoad is the load of a mix's draws, with the flags that set it: -c, -d (default d, the
// duration of what) and -draw-seed. Requests time out after 10 s.
func mixLoad(fs *flag.FlagSet, d time.Duration, what string) *loadOptions {
	lo := &loadOptions{timeout: 10 * time.Second}
	fs.IntVar(&lo.conns, "c", 32, "concurrent connections")
	fs.DurationVar(&lo.duration, "d", d, "duration of "+what)
	fs.Uint64Var(&lo.seed, "draw-seed", 1, "seed of the requests' parameter draws")
	return lo
}

// check refuses a load without connections or time, naming the command.
func (lo *loadOptions) check(command string) error {
	if lo.conns < 1 || lo.duration <= 0 {
		return fmt.Errorf("%s: -c must be at least 1 and -d positive", command)
	}
	return nil
}

// path is the i-th path to request, with {account} filled by a random account of the chain.
func (o loadOptions) path(i int, rnd *rand.Rand) string {
	path := o.paths[i]
	if len(o.accounts) > 0 && strings.Contains(path, "{account}") {
		path = strings.ReplaceAll(path, "{account}", o.accounts[rnd.IntN(len(o.accounts))])
	}
	return path
}

// kinds name what the run measures apart: the paths, or the mix's reads.
func (o loadOptions) kinds() []string {
	if o.mix == nil {
		return o.paths
	}
	names := make([]string, len(o.mix.reads))
	for i, r := range o.mix.reads {
		names[i] = r.name
	}
	return names
}

// drawer is worker w's: its own stream of the run's seed.
func (o loadOptions) drawer(w int) *drawer {
	var c *chainParams
	if o.mix != nil {
		c = o.mix.chain
	}
	return newDrawer(c, o.seed, uint64(w))
}

// next is a worker's n-th request: the index of its kind, and its path.
func (o loadOptions) next(n int, d *drawer) (int, string) {
	if o.mix == nil {
		i := n % len(o.paths)
		return i, o.path(i, d.rnd)
	}
	i := o.mix.pick(d.rnd)
	return i, o.mix.reads[i].path(d)
}

// pathResult is what one path measured over elapsed.
type pathResult struct {
	path      string
	elapsed   time.Duration
	latencies []time.Duration // of the successful requests
	errors    int             // transport errors and non-2xx answers
	firstErr  string
	// statements is how many SQL statements the server ran per request, from its
	// stxgraph_sql_statements_total (-1 when it does not say); measured with each path alone.
	statements float64
}

// result is a whole run: one mixed load, or one load per path.
type result struct {
	mixed   bool
	paths   []*pathResult
	peakRSS int64 // of the server, in kB (0: unknown)
}

// load runs the workers and merges what they measured.
func load(ctx context.Context, o loadOptions) *result {
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	perWorker := make([][]*pathResult, o.conns)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range o.conns {
		wg.Go(func() { perWorker[w] = worker(ctx, o, w) })
	}
	wg.Wait()
	r := &result{mixed: true}
	elapsed := time.Since(start)
	for i, p := range o.kinds() {
		merged := &pathResult{path: p, elapsed: elapsed, statements: -1}
		for _, rs := range perWorker {
			merged.latencies = append(merged.latencies, rs[i].latencies...)
			merged.errors += rs[i].errors
			if merged.firstErr == "" {
				merged.firstErr = rs[i].firstErr
			}
		}
		slices.Sort(merged.latencies)
		r.paths = append(r.paths, merged)
	}
	return r
}

// worker requests the paths in turn on its own connection, starting at its own offset so that
// every path is under load at every moment, or draws the mix's reads.
func worker(ctx context.Context, o loadOptions, w int) []*pathResult {
	rs := make([]*pathResult, len(o.kinds()))
	for i := range rs {
		rs[i] = &pathResult{}
	}
	c, err := newConn(o.base, o.timeout)
	if err != nil {
		for _, r := range rs {
			r.errors, r.firstErr = 1, err.Error()
		}
		return rs
	}
	defer c.close()
	d := o.drawer(w)
	for n := w; ctx.Err() == nil; n++ {
		i, path := o.next(n, d)
		began := time.Now()
		err := c.get(ctx, path)
		switch {
		case cutOff(ctx, err): // not a measurement
			return rs
		case err != nil:
			rs[i].errors++
			if rs[i].firstErr == "" {
				rs[i].firstErr = err.Error()
			}
		default:
			rs[i].latencies = append(rs[i].latencies, time.Since(began))
		}
	}
	return rs
}

// cutOff says whether a request ended because the run did.
func cutOff(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
}

// get fetches a URL and reads the whole body; an answer other than 2xx is an error.
func get(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// loadEach loads each path alone, one after the other, for the duration each.
func loadEach(ctx context.Context, o loadOptions) *result {
	r := &result{}
	for _, p := range o.paths {
		one := o
		one.paths = []string{p}
		before, okBefore := statements(ctx, o.base)
		pr := load(ctx, one).paths[0]
		if after, ok := statements(ctx, o.base); ok && okBefore && len(pr.latencies)+pr.errors > 0 {
			// Requests cut off by the end of the run may have run statements too: a slight overcount.
			pr.statements = (after - before) / float64(len(pr.latencies)+pr.errors)
		}
		r.paths = append(r.paths, pr)
	}
	return r
}

// statements reads the server's SQL statement counter from /metrics.
func statements(ctx context.Context, base string) (float64, bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return 0, false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "stxgraph_sql_statements_total "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// peakRSS reads a process's peak resident set size (VmHWM, kB) from /proc.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// write prints the run as a table: one line per path, and a total for a mixed load.
func (r *result) write(w io.Writer, conns int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	mode := "each path alone"
	if r.mixed {
		mode = "paths mixed"
	}
	fmt.Fprintf(tw, "%d connections, %s\t\t\t\t\t\t\t\n", conns, mode)
	fmt.Fprintln(tw, "requests\treq/s\tp50 ms\tp90 ms\tp99 ms\terrors\tsql/req\t\tpath")
	var all []time.Duration
	errs := 0
	for _, p := range r.paths {
		line(tw, p.latencies, p.elapsed, p.errors, p.statements, p.path)
		all = append(all, p.latencies...)
		errs += p.errors
	}
	if r.mixed {
		slices.Sort(all)
		line(tw, all, r.paths[0].elapsed, errs, -1, "(all)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(w, "peak RSS of the server: %d MB\n", r.peakRSS/1024)
	}
	for _, p := range r.paths {
		if p.firstErr != "" {
			fmt.Fprintf(w, "first error on %s: %s\n", p.path, p.firstErr)
		}
	}
	return nil
}

func line(w io.Writer, sorted []time.Duration, elapsed time.Duration, errs int, stmts float64, path string) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()*1000) }
	fmt.Fprintf(w, "%d\t%.0f\t%s\t%s\t%s\t%d\t%s\t\t%s\n", len(sorted), float64(len(sorted))/elapsed.Seconds(),
		ms(bench.Percentile(sorted, 50)), ms(bench.Percentile(sorted, 90)), ms(bench.Percentile(sorted, 99)), errs, perRequest(stmts), path)
}

func perRequest(stmts float64) string {
	if stmts < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", stmts)
}
