package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
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
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/tx"
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

// soakCommand measures the peak rate of the REST and GraphQL mixes together, then holds
// fraction of it for the duration while new blocks and mempool transactions are posted to the
// event observer, printing per interval the requests, p50/p99, errors, blocks and mempool
// transactions ingested and the server's resident memory.
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
	mempoolRate := fs.Float64("mempool-rate", 10, "mempool transactions posted per second")
	fs.Uint64Var(&lo.seed, "draw-seed", 1, "seed of the requests' parameter draws and of the mempool transactions")
	pid := fs.Int("pid", 0, "server process id, for its resident memory")
	wait := fs.Duration("wait", 30*time.Second, "first wait up to this long for the server")
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
	lo.mix = combinedMix(chain)
	lo.base = strings.TrimSuffix(lo.base, "/")
	if err := waitReady(ctx, lo.base+"/extended", *wait); err != nil {
		return err
	}
	// The generator replays the prepared chain before it reaches a new block: done now, it
	// takes no CPU from the server while the peak and the soak are measured.
	feed, first, err := newBlockFeed(*o)
	if err != nil {
		return err
	}
	peakRate := measurePeak(ctx, lo, *peakFor)
	rate := peakRate * *fraction
	fmt.Fprintf(stdout, "peak %.0f req/s over %s with %d connections; soaking at %.0f req/s for %s\n",
		peakRate, *peakFor, lo.conns, rate, lo.duration)

	ctx, cancel := context.WithTimeout(ctx, lo.duration)
	defer cancel()
	var st soakStats
	go ingestBlocks(ctx, feed, first, strings.TrimSuffix(*events, "/"), *blockEvery, st.block)
	go postMempool(ctx, *o, lo.seed, strings.TrimSuffix(*events, "/"), *mempoolRate, st.mempoolTx)
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
			d := lo.drawer(w)
			for n := w; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tokens:
				}
				_, path := lo.next(n, d)
				began := time.Now()
				err := c.get(ctx, path)
				if cutOff(ctx, err) {
					return
				}
				st.request(err, time.Since(began))
			}
		})
	}
	fmt.Fprintln(stdout, "elapsed  requests   req/s  p50 ms  p99 ms  errors  blocks  block errors  mempool txs  mempool errors  RSS MB")
	start, last := time.Now(), time.Now()
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
			if since := time.Since(last); since >= time.Second { // the last, shorter interval
				st.report(stdout, time.Since(start), since, *pid)
			}
		case <-tick.C:
			st.report(stdout, time.Since(start), *interval, *pid)
			last = time.Now()
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

// measurePeak is the rate lo's mix reaches over d with every connection busy.
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
	mempool, mempoolErrs    int
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

func (st *soakStats) block(err error)     { st.posted(&st.blocks, &st.blockErrs, "ingestion", err) }
func (st *soakStats) mempoolTx(err error) { st.posted(&st.mempool, &st.mempoolErrs, "mempool", err) }

// posted counts one message posted to the event observer, accepted or failed.
func (st *soakStats) posted(accepted, failed *int, what string, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		*failed++
		st.noteFirst(what + ": " + err.Error())
		return
	}
	*accepted++
}

func (st *soakStats) noteFirst(msg string) {
	if st.firstErr == "" {
		st.firstErr = msg
	}
}

// report prints one line for the interval just ended and starts the next.
func (st *soakStats) report(w io.Writer, elapsed, interval time.Duration, pid int) {
	st.mu.Lock()
	l, e, b, be, m, me := st.lat, st.errs, st.blocks, st.blockErrs, st.mempool, st.mempoolErrs
	st.lat, st.errs, st.blocks, st.blockErrs, st.mempool, st.mempoolErrs = nil, 0, 0, 0, 0, 0
	st.mu.Unlock()
	slices.Sort(l)
	fmt.Fprintf(w, "%7s  %8d  %6.0f  %6.2f  %6.2f  %6d  %6d  %12d  %11d  %14d  %6s\n", elapsed.Round(time.Second), len(l),
		float64(len(l))/interval.Seconds(), bench.Percentile(l, 50).Seconds()*1000, bench.Percentile(l, 99).Seconds()*1000,
		e, b, be, m, me, rss(pid))
}

// newBlockFeed is the chain's generator moved past the prepared chain, and the first message
// that follows it.
func newBlockFeed(o chaingen.Options) (*chaingen.Generator, chaingen.Message, error) {
	have := o.Blocks
	o.Blocks += 10_000
	g, err := chaingen.New(o)
	if err != nil {
		return nil, chaingen.Message{}, err
	}
	for {
		m, err := g.Next()
		if err != nil {
			return nil, chaingen.Message{}, err
		}
		if g.Stats().Blocks > int64(have+1) { // the prepared database holds those (with genesis)
			return g, m, nil
		}
	}
}

// ingestBlocks posts first and the messages of g that follow it to the event observer, a block
// every d, each until it is accepted, as a stacks-node delivers them.
func ingestBlocks(ctx context.Context, g *chaingen.Generator, first chaingen.Message, events string, d time.Duration, done func(error)) {
	client := &http.Client{Timeout: time.Minute}
	for m := first; ; {
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
		var err error
		if m, err = g.Next(); err != nil {
			done(err)
			return
		}
	}
}

// postMempool posts rate signed STX transfers a second to the event observer, one per
// /new_mempool_tx message as a stacks-node relays them, until ctx ends. Their nonces are far
// above any the chain's blocks use, so they stay pending and the mempool grows through the
// soak, as on a congested network.
func postMempool(ctx context.Context, o chaingen.Options, seed uint64, events string, rate float64, done func(error)) {
	if rate <= 0 {
		return
	}
	g, err := chaingen.New(o)
	if err != nil {
		done(err)
		return
	}
	rnd := rand.New(rand.NewPCG(seed, 0x3e3))
	client := &http.Client{Timeout: time.Minute}
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	accounts := g.Accounts()
	for n := uint64(0); ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		from, to := accounts[rnd.IntN(len(accounts))], accounts[rnd.IntN(len(accounts))]
		body, err := mempoolMessage(from, to, 1<<40+n, o.Mainnet)
		if err == nil {
			err = post(ctx, client, events+chaingen.PathNewMempoolTx, body)
		}
		if ctx.Err() != nil {
			return
		}
		done(err)
	}
}

// mempoolMessage is a /new_mempool_tx message of one signed transfer of 1 µSTX.
func mempoolMessage(from, to chaingen.Account, nonce uint64, mainnet bool) ([]byte, error) {
	t, err := tx.NewTokenTransfer(tx.TransferOptions{Recipient: c32.Principal{Address: to.Address}, Amount: 1,
		Memo: "loadgen soak", Nonce: nonce, Fee: 180, Mainnet: mainnet})
	if err != nil {
		return nil, err
	}
	if err := t.SignSingleSig(from.Key, true); err != nil {
		return nil, err
	}
	return json.Marshal([]string{"0x" + hex.EncodeToString(t.Encode())})
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
