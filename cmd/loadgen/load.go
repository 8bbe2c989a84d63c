package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/stxgraph/stxgraph/bench"
)

// loadOptions describe one load run: conns workers, each with its own keep-alive connection,
// request the paths round-robin for the duration.
type loadOptions struct {
	base     string
	paths    []string
	conns    int
	duration time.Duration
	timeout  time.Duration
}

// pathResult is what one path measured over elapsed.
type pathResult struct {
	path      string
	elapsed   time.Duration
	latencies []time.Duration // of the successful requests
	errors    int             // transport errors and non-2xx answers
	firstErr  string
}

// result is a whole run: one mixed load, or one load per path.
type result struct {
	mixed bool
	paths []*pathResult
}

// load runs the workers and merges what they measured.
func load(ctx context.Context, o loadOptions) *result {
	transport := &http.Transport{MaxIdleConnsPerHost: o.conns, MaxConnsPerHost: o.conns, DisableCompression: true}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: o.timeout}
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	perWorker := make([][]*pathResult, o.conns)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range o.conns {
		wg.Go(func() { perWorker[w] = worker(ctx, client, o, w) })
	}
	wg.Wait()
	r := &result{mixed: true}
	elapsed := time.Since(start)
	for i, p := range o.paths {
		merged := &pathResult{path: p, elapsed: elapsed}
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

// worker requests the paths in turn, starting at its own offset so that every path is under
// load at every moment.
func worker(ctx context.Context, client *http.Client, o loadOptions, w int) []*pathResult {
	rs := make([]*pathResult, len(o.paths))
	for i := range rs {
		rs[i] = &pathResult{}
	}
	for n := w; ctx.Err() == nil; n++ {
		i := n % len(o.paths)
		began := time.Now()
		err := get(ctx, client, o.base+o.paths[i])
		switch {
		case ctx.Err() != nil: // cut off by the end of the run: not a measurement
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
		r.paths = append(r.paths, load(ctx, one).paths[0])
	}
	return r
}

// write prints the run as a table: one line per path, and a total for a mixed load.
func (r *result) write(w io.Writer, conns int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	mode := "each path alone"
	if r.mixed {
		mode = "paths mixed"
	}
	fmt.Fprintf(tw, "%d connections, %s\t\t\t\t\t\t\t\n", conns, mode)
	fmt.Fprintln(tw, "requests\treq/s\tp50 ms\tp90 ms\tp99 ms\terrors\t\tpath")
	var all []time.Duration
	errs := 0
	for _, p := range r.paths {
		line(tw, p.latencies, p.elapsed, p.errors, p.path)
		all = append(all, p.latencies...)
		errs += p.errors
	}
	if r.mixed {
		slices.Sort(all)
		line(tw, all, r.paths[0].elapsed, errs, "(all)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.paths {
		if p.firstErr != "" {
			fmt.Fprintf(w, "first error on %s: %s\n", p.path, p.firstErr)
		}
	}
	return nil
}

func line(w io.Writer, sorted []time.Duration, elapsed time.Duration, errs int, path string) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()*1000) }
	fmt.Fprintf(w, "%d\t%.0f\t%s\t%s\t%s\t%d\t\t%s\n", len(sorted), float64(len(sorted))/elapsed.Seconds(),
		ms(bench.Percentile(sorted, 50)), ms(bench.Percentile(sorted, 90)), ms(bench.Percentile(sorted, 99)), errs, path)
}
