package main

import (
	"bytes"
	"context"
	"database/sql"
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
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// soakDBCommand copies the prepared chain database into a scratch one (the soak's ingestion
// adds blocks to it) and prints its URL.
func soakDBCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("soak-db", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	src, err := bench.ChainDB(ctx, *o, false, nil)
	if err != nil {
		return err
	}
	name, err := bench.ChainDBName(*o)
	if err != nil {
		return err
	}
	admin := *bench.ServerURL()
	admin.Path = "/postgres"
	// Copying a database of a gigabyte or more outlasts the driver's default read timeout.
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin.String()), pgdriver.WithReadTimeout(0)))
	defer sqldb.Close()
	soak := name + "_soak"
	for _, q := range []string{`DROP DATABASE IF EXISTS "` + soak + `" WITH (FORCE)`,
		`CREATE DATABASE "` + soak + `" TEMPLATE "` + name + `"`} {
		if _, err := sqldb.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w (source %s)", q, err, src)
		}
	}
	u := *bench.ServerURL()
	u.Path = "/" + soak
	_, err = fmt.Fprintln(stdout, u.String())
	return err
}

// soakCommand measures the peak mixed-load rate, then holds fraction of it for the duration
// while new blocks are posted to the event observer, printing per interval the requests,
// p50/p99, errors, blocks ingested and the server's resident memory.
func soakCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	lo := loadOptions{timeout: 10 * time.Second}
	fs.StringVar(&lo.base, "url", "http://127.0.0.1:3999", "base URL of the stxgraph API")
	events := fs.String("events", "http://127.0.0.1:3700", "base URL of its event observer")
	fs.IntVar(&lo.conns, "c", 32, "concurrent connections")
	peakFor := fs.Duration("peak", 20*time.Second, "how long to measure the peak rate")
	fs.DurationVar(&lo.duration, "d", 10*time.Minute, "duration of the soak")
	fraction := fs.Float64("fraction", 0.8, "share of the peak rate to hold")
	interval := fs.Duration("interval", time.Minute, "reporting interval")
	blockEvery := fs.Duration("block-every", 5*time.Second, "time between ingested blocks")
	pid := fs.Int("pid", 0, "server process id, for its resident memory")
	wait := fs.Duration("wait", 30*time.Second, "first wait up to this long for the server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	subst, err := placeholders(*o)
	if err != nil {
		return err
	}
	lo.paths = fill(subst, defaultPaths)
	if lo.accounts, err = accountAddresses(*o); err != nil {
		return err
	}
	lo.base = strings.TrimSuffix(lo.base, "/")
	if err := waitReady(ctx, lo.base+"/extended", *wait); err != nil {
		return err
	}
	peakRate := measurePeak(ctx, lo, *peakFor)
	rate := peakRate * *fraction
	fmt.Fprintf(stdout, "peak %.0f req/s over %s with %d connections; soaking at %.0f req/s for %s\n",
		peakRate, *peakFor, lo.conns, rate, lo.duration)

	ctx, cancel := context.WithTimeout(ctx, lo.duration)
	defer cancel()
	var st soakStats
	go ingestBlocks(ctx, *o, strings.TrimSuffix(*events, "/"), *blockEvery, st.block)
	tokens := make(chan struct{}, lo.conns)
	go pace(ctx, rate, tokens)
	var wg sync.WaitGroup
	for w := range lo.conns {
		c, err := newConn(lo.base, lo.timeout)
		if err != nil {
			return err
		}
		wg.Go(func() {
			defer c.close()
			rnd := rand.New(rand.NewPCG(uint64(w), 17))
			for n := w; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tokens:
				}
				began := time.Now()
				err := c.get(ctx, lo.path(n%len(lo.paths), rnd))
				if cutOff(ctx, err) {
					return
				}
				st.request(err, time.Since(began))
			}
		})
	}
	fmt.Fprintln(stdout, "elapsed  requests   req/s  p50 ms  p99 ms  errors  blocks  block errors  RSS MB")
	start := time.Now()
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			st.report(stdout, time.Since(start), *interval, *pid)
		}
	}
	wg.Wait()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.firstErr != "" {
		fmt.Fprintln(stdout, "first error:", st.firstErr)
	}
	return nil
}

// measurePeak is the mixed rate lo's paths reach over d with every connection busy.
func measurePeak(ctx context.Context, lo loadOptions, d time.Duration) float64 {
	lo.duration = d
	r := load(ctx, lo)
	total := 0
	for _, p := range r.paths {
		total += len(p.latencies)
	}
	return float64(total) / r.paths[0].elapsed.Seconds()
}

// pace hands the workers rate tokens a second, in 10 ms slices, until ctx ends; tokens the
// workers are too busy to take are dropped, so the rate is a ceiling.
func pace(ctx context.Context, rate float64, tokens chan<- struct{}) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	credit := 0.0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			for credit += rate / 100; credit >= 1; credit-- {
				select {
				case tokens <- struct{}{}:
				default:
				}
			}
		}
	}
}

// soakStats counts what happened since the last report, and keeps the first error seen.
type soakStats struct {
	mu                      sync.Mutex
	lat                     []time.Duration
	errs, blocks, blockErrs int
	firstErr                string
}

func (st *soakStats) request(err error, took time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		st.errs++
		st.noteFirst(err.Error())
		return
	}
	st.lat = append(st.lat, took)
}

func (st *soakStats) block(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		st.blockErrs++
		st.noteFirst("ingestion: " + err.Error())
		return
	}
	st.blocks++
}

func (st *soakStats) noteFirst(msg string) {
	if st.firstErr == "" {
		st.firstErr = msg
	}
}

// report prints one line for the interval just ended and starts the next.
func (st *soakStats) report(w io.Writer, elapsed, interval time.Duration, pid int) {
	st.mu.Lock()
	l, e, b, be := st.lat, st.errs, st.blocks, st.blockErrs
	st.lat, st.errs, st.blocks, st.blockErrs = nil, 0, 0, 0
	st.mu.Unlock()
	slices.Sort(l)
	fmt.Fprintf(w, "%7s  %8d  %6.0f  %6.2f  %6.2f  %6d  %6d  %12d  %6s\n", elapsed.Round(time.Second), len(l),
		float64(len(l))/interval.Seconds(), bench.Percentile(l, 50).Seconds()*1000, bench.Percentile(l, 99).Seconds()*1000,
		e, b, be, rss(pid))
}

// ingestBlocks posts the blocks that follow the prepared chain to the event observer, one every
// d, each until it is accepted, as a stacks-node delivers them.
func ingestBlocks(ctx context.Context, o chaingen.Options, events string, d time.Duration, done func(error)) {
	have := o.Blocks
	o.Blocks += 10_000
	g, err := chaingen.New(o)
	if err != nil {
		done(err)
		return
	}
	client := &http.Client{Timeout: time.Minute}
	for {
		m, err := g.Next()
		if err != nil {
			done(err)
			return
		}
		if g.Stats().Blocks <= int64(have+1) { // already in the prepared database (with genesis)
			continue
		}
		for {
			err := post(ctx, client, events+m.Path, m.Payload)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				break
			}
			done(err)
			time.Sleep(time.Second)
		}
		if m.Path == "/new_block" {
			done(nil)
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
	}
}

func post(ctx context.Context, client *http.Client, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	return nil
}

// rss reads a process's resident memory in MB from /proc ("-" when unknown).
func rss(pid int) string {
	if pid <= 0 {
		return "-"
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "-"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				break
			}
			return strconv.Itoa(kb / 1024)
		}
	}
	return "-"
}
