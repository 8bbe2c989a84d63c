package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/internal/pgproc"
)

// chaosChain is the chain the chaos run's node produces: small blocks with a contract call,
// a microblock on every third block, long enough never to end within a run.
var chaosChain = chaingen.Options{Seed: 17, Blocks: 100_000, TxsPerBlock: 8, Accounts: 200, BusyShare: 0.3,
	ContractCallsPerBlock: 1, MicroblockEvery: 3, MicroblockTxs: 2}

// chaosFaucetKey is the STX faucet's key in the chaos run (a testnet key of no value).
const chaosFaucetKey = "7287ba251d44a4d3fd9276c88ce34c5c52a038955511cccaf77e61068649c17801"

// windowGrace extends each fault's window past its recovery: requests already under way when
// the service came back may still fail.
const windowGrace = 2 * time.Second

type chaosOptions struct {
	bin                              string
	duration, blockEvery, faultEvery time.Duration
	mempoolRate, readRate            float64
	subscribers                      int
	replica, keep                    bool
	results, note                    string
	seed                             uint64
	warmBlocks                       int
}

// chaosCommand runs stxgraph under faults (see chaos below) and fails when a check fails.
func chaosCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o chaosOptions
	fs.StringVar(&o.bin, "server", "bin/stxgraph", "the stxgraph binary")
	fs.DurationVar(&o.duration, "d", 3*time.Minute, "duration of the run under faults")
	fs.DurationVar(&o.blockEvery, "block-every", 1500*time.Millisecond, "time between blocks the node posts")
	fs.Float64Var(&o.mempoolRate, "mempool-rate", 10, "mempool transactions the node posts per second")
	fs.Float64Var(&o.readRate, "rate", 20, "reads per second of the REST and GraphQL mix")
	fs.IntVar(&o.subscribers, "subscribers", 20, "GraphQL subscribers (blocks, mempool and address feeds)")
	fs.DurationVar(&o.faultEvery, "fault-every", 15*time.Second, "mean time between faults")
	fs.BoolVar(&o.replica, "replica", true, "the API process reads from a streaming replica")
	fs.StringVar(&o.results, "results", "", "append the summary to this Markdown file")
	fs.StringVar(&o.note, "note", "", "what the run measured, written with the summary")
	fs.BoolVar(&o.keep, "keep", false, "keep the clusters' directory (logs, data) after the run")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the reads' parameters and of the faults' order")
	fs.IntVar(&o.warmBlocks, "warm-blocks", 12, "blocks posted at once before the traffic and faults start")
	if err := fs.Parse(args); err != nil {
		return err
	}
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	o.bin = bin
	return chaos(ctx, o, stdout)
}

// chaosRun is one chaos run's moving parts.
type chaosRun struct {
	o                chaosOptions
	log              *slog.Logger
	root             string
	primary, replica *pgproc.Cluster
	ingest, api      *process
	apiURL           string
	node             *chainNode
	faucetNode       *faucetNode
	subs             []*subscriber
	outcomes         outcomeLog
	faults           faultLog
	faucet           faucetClient
	drops            atomic.Int64 // forced subscriber disconnects
}

// chaos starts a PostgreSQL primary and replica of its own, an ingesting stxgraph and an API
// process, a node posting a generated chain, read traffic, subscribers and a faucet client;
// injects faults for o.duration; then checks what everyone saw and reports.
func chaos(ctx context.Context, o chaosOptions, stdout io.Writer) error {
	r := &chaosRun{o: o, log: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	defer r.cleanup()
	if err := r.setUp(ctx); err != nil {
		return err
	}
	g, err := chaingen.New(chaosChain)
	if err != nil {
		return err
	}
	nodeCtx, stopNode := context.WithCancel(ctx)
	defer stopNode()
	var nodeWG sync.WaitGroup
	nodeErr := make(chan error, 2)
	// The first blocks go in at once, so that the reads have a chain to draw from.
	for blocks := 0; blocks < o.warmBlocks; {
		m, err := g.Next()
		if err != nil {
			return err
		}
		if !r.node.deliver(ctx, m) {
			return ctx.Err()
		}
		if m.Path == chaingen.PathNewBlock {
			blocks++
		}
	}
	nodeWG.Go(func() { nodeErr <- r.node.feedBlocks(nodeCtx, g, o.blockEvery) })
	nodeWG.Go(func() { nodeErr <- r.node.feedMempool(nodeCtx, g.Accounts(), o.mempoolRate) })
	chain, err := loadChain(ctx, r.primary.URL("stxgraph"), chaosChain)
	if err != nil {
		return err
	}

	runCtx, stopRun := context.WithTimeout(ctx, o.duration)
	defer stopRun()
	subCtx, stopSubs := context.WithCancel(ctx)
	defer stopSubs()
	var wg, subWG sync.WaitGroup
	for i := range o.subscribers {
		feed, principal := "blocks", ""
		switch i % 5 {
		case 1, 3:
			feed = "mempool"
		case 4:
			feed, principal = "address", chain.accounts[i/5].address
		}
		s := newSubscriber(fmt.Sprintf("%s-%d", feed, i), feed, principal, feedStart, func() string { return r.apiURL })
		r.subs = append(r.subs, s)
		subWG.Go(func() { s.run(subCtx) })
	}
	wg.Go(func() { r.dropSubscribers(runCtx) })
	wg.Go(func() { r.read(runCtx, combinedMix(chain)) })
	faucetDone := make(chan struct{})
	go func() { defer close(faucetDone); r.faucet.run(runCtx, &r.outcomes) }()
	wg.Go(func() { r.injectFaults(runCtx) })
	start := time.Now()
	r.log.Info("chaos run under way", "duration", o.duration)
	wg.Wait()
	<-faucetDone
	stopNode()
	nodeWG.Wait()
	close(nodeErr)
	for err := range nodeErr {
		if err != nil {
			return fmt.Errorf("node: %w", err)
		}
	}
	elapsed := time.Since(start)
	r.log.Info("run over: waiting for the subscribers to catch up")
	feeds, caughtUp := r.awaitSubscribers(ctx)
	stopSubs()
	subWG.Wait()
	rep := r.check(ctx, feeds, caughtUp)
	rep.elapsed = elapsed
	text := rep.markdown(o)
	fmt.Fprint(stdout, text)
	if o.results != "" {
		if err := appendFile(o.results, text); err != nil {
			return err
		}
	}
	if len(rep.failures) > 0 {
		return fmt.Errorf("%d checks failed:\n  %s", len(rep.failures), strings.Join(rep.failures, "\n  "))
	}
	return nil
}

// setUp starts the clusters, the faucet's node and both stxgraph processes.
func (r *chaosRun) setUp(ctx context.Context) error {
	var err error
	if r.root, err = pgproc.Root("stxgraph-chaos-"); err != nil {
		return err
	}
	r.log.Info("starting PostgreSQL", "dir", r.root)
	if r.primary, err = pgproc.StartPrimary(r.root, "primary"); err != nil {
		return err
	}
	readURL := r.primary.URL("stxgraph")
	if r.o.replica {
		if r.replica, err = r.primary.StartReplica("replica"); err != nil {
			return err
		}
		readURL = r.replica.URL("stxgraph")
	}
	if r.faucetNode, err = startFaucetNode(); err != nil {
		return err
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = pgproc.FreePort(); err != nil {
			return err
		}
	}
	ingestAPI, events, apiPort := ports[0], ports[1], ports[2]
	r.ingest = &process{name: "ingesting stxgraph", bin: r.o.bin, log: filepath.Join(r.root, "ingest.log"),
		args: []string{"serve", "--database-url", r.primary.URL("stxgraph"), "--port", strconv.Itoa(ingestAPI),
			"--event-port", strconv.Itoa(events)},
		ready: fmt.Sprintf("http://127.0.0.1:%d/extended", ingestAPI)}
	if err := r.ingest.start(ctx); err != nil {
		return err
	}
	_, nodePort, _ := strings.Cut(strings.TrimPrefix(r.faucetNode.url, "http://"), ":")
	r.apiURL = fmt.Sprintf("http://127.0.0.1:%d", apiPort)
	r.api = &process{name: "API stxgraph", bin: r.o.bin, log: filepath.Join(r.root, "api.log"),
		args: []string{"serve", "--no-ingest", "--database-url", r.primary.URL("stxgraph"), "--database-read-url", readURL,
			"--port", strconv.Itoa(apiPort), "--faucet-node-host", "127.0.0.1", "--faucet-node-port", nodePort,
			"--faucet-rate-limit=false"},
		env:   []string{"FAUCET_PRIVATE_KEY=" + chaosFaucetKey},
		ready: r.apiURL + "/extended"}
	if err := r.api.start(ctx); err != nil {
		return err
	}
	r.node = newChainNode(fmt.Sprintf("http://127.0.0.1:%d", events))
	r.faucet = faucetClient{api: r.apiURL, node: r.faucetNode}
	return nil
}

func (r *chaosRun) cleanup() {
	for _, p := range []*process{r.api, r.ingest} {
		if p != nil {
			p.stop()
		}
	}
	if r.faucetNode != nil {
		r.faucetNode.close()
	}
	for _, c := range []*pgproc.Cluster{r.replica, r.primary} {
		if c != nil {
			if err := c.Stop(); err != nil {
				r.log.Warn("stopping PostgreSQL", "err", err)
			}
		}
	}
	if r.root == "" {
		return
	}
	if r.o.keep {
		r.log.Info("kept the run's directory", "dir", r.root)
		return
	}
	os.RemoveAll(r.root)
}

// read sends the mix's reads at o.readRate from four connections until ctx ends.
func (r *chaosRun) read(ctx context.Context, m *mix) {
	tokens := make(chan struct{}, 4)
	go pace(ctx, r.o.readRate, tokens)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			client := &http.Client{Timeout: 10 * time.Second}
			d := newDrawer(m.chain, r.o.seed, uint64(w))
			for {
				select {
				case <-ctx.Done():
					return
				case <-tokens:
				}
				path := m.reads[m.pick(d.rnd)].path(d)
				r.outcomes.get(ctx, client, "read", r.apiURL+path)
			}
		})
	}
	wg.Wait()
}

// dropSubscribers cuts a random subscriber's connection every few seconds.
func (r *chaosRun) dropSubscribers(ctx context.Context) {
	rnd := mrand.New(mrand.NewPCG(r.o.seed, 0xd09))
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(2+rnd.IntN(4)) * time.Second):
		}
		r.subs[rnd.IntN(len(r.subs))].drop()
		r.drops.Add(1)
	}
}

// awaitSubscribers waits (up to a minute) until every blocks and mempool subscriber has the
// last item of its feed, and returns the feeds as the notice log has them and whether they did.
func (r *chaosRun) awaitSubscribers(ctx context.Context) (map[string][]feedPosition, bool) {
	deadline := time.Now().Add(time.Minute)
	for {
		feeds, err := noticeFeeds(ctx, r.primary.URL("stxgraph"))
		if err == nil {
			done := true
			for _, s := range r.subs {
				want, got := feeds[s.feed], s.received()
				if s.feed != "address" && len(want) > 0 && (len(got) == 0 || got[len(got)-1].less(want[len(want)-1])) {
					done = false
				}
			}
			if done {
				return feeds, true
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return feeds, false
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// noticeFeeds reads the notice log: the items of the blocks feed (a block or a reorganisation
// per notice) and of the mempool feed (a transaction per id), in order.
func noticeFeeds(ctx context.Context, dsn string) (map[string][]feedPosition, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT seq, payload FROM notices ORDER BY seq`)
	feeds := map[string][]feedPosition{}
	var seq int64
	var payload string
	_, err = pgx.ForEachRow(rows, []any{&seq, &payload}, func() error {
		n, err := notices.Parse(payload)
		if err != nil {
			return nil // another channel's notice (BRC-20): no feed followed here reports it
		}
		switch n.Kind {
		case notices.KindBlock, notices.KindReorg:
			feeds["blocks"] = append(feeds["blocks"], feedPosition{seq, 0})
		case notices.KindMempool, notices.KindMempoolDrop:
			for i := range n.TxIDs {
				feeds["mempool"] = append(feeds["mempool"], feedPosition{seq, i})
			}
		}
		return nil
	})
	return feeds, err
}

// digest runs stxgraph verify --digest on a database.
func (r *chaosRun) digest(ctx context.Context, dsn string) (string, error) {
	out, err := exec.CommandContext(ctx, r.o.bin, "verify", "--digest", "--database-url", dsn).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("verify --digest: %w\n%s", err, out)
	}
	return string(out), nil
}

// freshDigest feeds the accepted messages, in order and without faults, to a new database and
// returns its digest.
func (r *chaosRun) freshDigest(ctx context.Context) (string, error) {
	ports := make([]int, 2)
	for i := range ports {
		p, err := pgproc.FreePort()
		if err != nil {
			return "", err
		}
		ports[i] = p
	}
	fresh := &process{name: "stxgraph on a fresh database", bin: r.o.bin, log: filepath.Join(r.root, "fresh.log"),
		args: []string{"serve", "--database-url", r.primary.URL("stxgraph_fresh"), "--port", strconv.Itoa(ports[0]),
			"--event-port", strconv.Itoa(ports[1])},
		ready: fmt.Sprintf("http://127.0.0.1:%d/extended", ports[0])}
	if err := fresh.start(ctx); err != nil {
		return "", err
	}
	defer fresh.stop()
	replay := newChainNode(fmt.Sprintf("http://127.0.0.1:%d", ports[1]))
	for _, m := range r.node.messages() {
		if !replay.deliver(ctx, m) {
			return "", ctx.Err()
		}
	}
	if replay.retries > 0 {
		return "", fmt.Errorf("the fresh database refused %d deliveries", replay.retries)
	}
	return r.digest(ctx, r.primary.URL("stxgraph_fresh"))
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("\n" + text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newKey is a fresh idempotency key.
func newKey() string {
	b := make([]byte, 12)
	rand.Read(b) //nolint:errcheck // never fails
	return "chaos-" + hex.EncodeToString(b)
}

var errNoAnswer = errors.New("no answer")
