// Command loadgen load-tests stxgraph on a synthetic chain:
//
//	loadgen prepare [chain flags]            build (once) the chain's database and print its URL
//	loadgen tsv -o FILE [chain flags]        write the chain as an event-replay TSV file (.gz: gzip)
//	loadgen run [-url U] [-c N] [-d D] [chain flags] [PATH...]
//	                                         request the paths from N connections for D and
//	                                         report req/s, p50, p90, p99 and errors per path
//	                                         (each path alone for D, or all together with
//	                                         -mixed; -wait D2: first wait for the server)
//	loadgen mixes [-server BIN] [-c N] [-d D] [chain flags]
//	                                         the load benchmark: pgbench -S, then the REST and
//	                                         GraphQL mixes (mix.go), each on a freshly started
//	                                         server, then each of their reads alone on a server
//	                                         keeping no answers; reports req/s, p50, p99, errors,
//	                                         the server's and PostgreSQL's CPU and the SQL
//	                                         statements per request
//	loadgen read [-url U] [-pid P] [-mix rest|graphql] [-only I] [-c N] [-d D] [chain flags]
//	                                         one mix, or its read I alone, on a server already
//	                                         running: req/s, p50, p99, errors, CPU and statements
//	                                         per request (two builds compared read by read)
//	loadgen soak-db [chain flags]            copy the chain's database for a soak and print its URL
//	loadgen soak [-url U] [-events E] [-pid P] [-d D] [chain flags]
//	                                         measure the peak rate of both mixes together, then
//	                                         hold 80% of it for D while posting new blocks and
//	                                         mempool transactions to the event observer; prints
//	                                         requests, p50/p99, errors and the server's RSS per
//	                                         interval
//
// Paths may hold placeholders filled in from the chain: {busy}, {crowd} and {idle} (the busy
// account, an ordinary one with a few hundred transactions, and the idle one), {account} (a
// different account of the chain at each request), {contract} (the id of the printing contract)
// and {txids} (five tx_id=… query parameters of the chain's transactions). Without paths, run
// requests fixed paths of the chain's busiest and idle accounts (defaultPaths), two GraphQL
// reads included.
// With the server's pid, run also reports its peak RSS; -results writes the table to a
// Markdown file, keeping the run before.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

var defaultPaths = []string{
	"/extended/v1/address/{busy}/stx",
	"/extended/v1/address/{idle}/stx",
	"/extended/v1/address/{account}/stx",
	"/extended/v1/address/{busy}/stx?until_block=1500",
	"/extended/v1/block?limit=20",
	"/extended/v1/address/{busy}/transactions_with_transfers?limit=20",
	"/extended/v1/address/{busy}/transactions_with_transfers?limit=20&offset=20000",
	"/extended/v1/address/{crowd}/transactions_with_transfers",
	"/extended/v1/address/{idle}/transactions_with_transfers",
	"/extended/v1/tx/multiple?{txids}",
	"/extended/v1/tx/events?address={busy}",
	"/extended/v1/tx/events?address={busy}&limit=50&offset=20000",
	"/extended/v1/contract/{contract}/events",
	"/graphql?query=" + url.QueryEscape(frontPageQuery),
	"/graphql?query=" + url.QueryEscape(accountQuery),
}

// uncachedPaths are measured again on a server that keeps no answers (-uncached): what a read
// costs the first time at a chain state.
var uncachedPaths = []string{
	"/extended/v1/address/{account}/stx",
	"/extended/v1/address/{busy}/stx?until_block=1500",
	"/extended/v1/address/{busy}/transactions_with_transfers?limit=20&offset=20000",
	"/extended/v1/tx/events?address={busy}&limit=50&offset=20000",
	"/extended/v1/block?limit=20",
	"/graphql?query=" + url.QueryEscape(frontPageQuery),
	"/graphql?query=" + url.QueryEscape(accountQuery),
}

// The two GraphQL reads of the load benchmark: an explorer's front page (20 blocks, 20
// transactions each with their first events) and the busy account's page.
const (
	frontPageQuery = `{ blocksConnection(first: 20) { nodes { height hash burnBlock { height } transactions(first: 20) { nodes { txId feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } } }`
	accountQuery   = `{ account(principal: "{busy}") { stxBalance { balance locked } transactions(first: 20) { totalCount nodes { txId blockHeight feeRate } } } }`
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"prepare": prepareCommand, "tsv": tsvCommand, "run": runCommand, "mixes": mixesCommand,
		"soak-db": soakDBCommand, "soak": soakCommand, "chaos": chaosCommand, "read": readCommand,
	}
	if len(args) == 0 || cmds[args[0]] == nil {
		fmt.Fprintln(stderr, "usage: loadgen prepare|tsv|run|mixes|read|soak-db|soak|chaos [flags]; loadgen <command> -h lists the flags")
		return 2
	}
	if err := cmds[args[0]](ctx, args[1:], stdout, stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "loadgen:", err)
		}
		return 1
	}
	return 0
}

// chainFlags registers the generator options, defaulting to bench.HistoryChain.
func chainFlags(fs *flag.FlagSet) *chaingen.Options {
	o := bench.HistoryChain
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "chain generator seed")
	fs.IntVar(&o.Blocks, "blocks", o.Blocks, "blocks after genesis")
	fs.IntVar(&o.TxsPerBlock, "txs", o.TxsPerBlock, "STX transfers per block")
	fs.IntVar(&o.Accounts, "accounts", o.Accounts, "accounts")
	fs.Float64Var(&o.BusyShare, "busy-share", o.BusyShare, "share of the transfers the busy account takes part in")
	fs.IntVar(&o.ContractCallsPerBlock, "calls", o.ContractCallsPerBlock, "contract calls per block")
	fs.BoolVar(&o.Mainnet, "mainnet", o.Mainnet, "mainnet addresses and transactions")
	return &o
}

func prepareCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	rebuild := fs.Bool("rebuild", false, "wipe and replay the chain again (after ingestion code changes)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dsn, err := chainDB(ctx, *o, *rebuild, stderr)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, dsn)
	return err
}

// chainDB builds the chain's database unless it is built already, logging how the build goes,
// and returns its URL.
func chainDB(ctx context.Context, o chaingen.Options, rebuild bool, stderr io.Writer) (string, error) {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	log.Info("preparing the chain database (the first build replays the whole chain)", "chain", o.Key())
	return bench.ChainDB(ctx, o, rebuild, func(p ingest.Progress) {
		log.Info("replaying", "blocks", p.Blocks, "messages", p.Done, "elapsed", p.Elapsed.Round(time.Second))
	})
}

func tsvCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tsv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	out := fs.String("o", "", "output file (required); a .gz name is gzip-compressed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("tsv: -o FILE is required")
	}
	g, err := chaingen.New(*o)
	if err != nil {
		return err
	}
	w, err := tsv.Create(*out)
	if err != nil {
		return err
	}
	n, err := chaingen.WriteTSV(w, g)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	st := g.Stats()
	_, err = fmt.Fprintf(stdout, "%s: %d records, %d blocks, %d transactions, %d events\n", *out, n, st.Blocks, st.Txs, st.Events)
	return err
}

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	lo := loadOptions{}
	fs.StringVar(&lo.base, "url", "http://127.0.0.1:3999", "base URL of the stxgraph API")
	fs.IntVar(&lo.conns, "c", 32, "concurrent connections")
	fs.DurationVar(&lo.duration, "d", 20*time.Second, "duration of the run")
	fs.DurationVar(&lo.timeout, "timeout", 10*time.Second, "timeout of one request")
	wait := fs.Duration("wait", 0, "first wait up to this long for the server to answer /extended")
	mixed := fs.Bool("mixed", false, "request all paths together (default: each path alone for the duration)")
	pid := fs.Int("pid", 0, "process id of the server, for its peak RSS")
	results := fs.String("results", "", "also write the table to this Markdown file, keeping the previous run")
	note := fs.String("note", "", "what the run measured (e.g. the server's build), written with it to -results")
	uncached := fs.String("uncached", "", "base URL of a second server that keeps no answers, on which the reads that depend on\n"+
		"what a first read costs are measured too (the default paths only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if lo.conns < 1 || lo.duration <= 0 {
		return errors.New("run: -c must be at least 1 and -d positive")
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = defaultPaths
	} else {
		*uncached = ""
	}
	subst, err := placeholders(*o)
	if err != nil {
		return err
	}
	lo.paths = fill(subst, paths)
	if lo.accounts, err = accountAddresses(*o); err != nil {
		return err
	}
	lo.base = strings.TrimSuffix(lo.base, "/")
	if err := waitReady(ctx, lo.base+"/extended", *wait); err != nil {
		return err
	}
	loadAvg := loadAverage()
	var r *result
	if *mixed {
		r = load(ctx, lo)
	} else {
		r = loadEach(ctx, lo)
	}
	if *uncached != "" {
		ul := lo
		ul.base, ul.paths = strings.TrimSuffix(*uncached, "/"), fill(subst, uncachedPaths)
		if err := waitReady(ctx, ul.base+"/extended", *wait); err != nil {
			return err
		}
		for _, p := range loadEach(ctx, ul).paths {
			p.path = uncachedLabel + p.path
			r.paths = append(r.paths, p)
		}
	}
	if *pid > 0 {
		r.peakRSS = peakRSS(*pid)
	}
	if err := r.write(stdout, lo.conns); err != nil {
		return err
	}
	if *results != "" {
		return writeResults(*results, r.markdown(lo.conns, lo.duration, loadAvg, *note))
	}
	return nil
}

// uncachedLabel marks the reads measured on the server that keeps no answers.
const uncachedLabel = "(no answer cache) "

// fill replaces the placeholders of paths.
func fill(subst *strings.Replacer, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		// Placeholders may come URL-escaped inside a GraphQL query.
		p = strings.NewReplacer("%7Bbusy%7D", "{busy}", "%7Bidle%7D", "{idle}", "%7Bcrowd%7D", "{crowd}").Replace(p)
		out[i] = subst.Replace(p)
	}
	return out
}

// accountAddresses are the addresses of the chain's accounts, for {account}.
func accountAddresses(o chaingen.Options) ([]string, error) {
	g, err := chaingen.New(o)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range g.Accounts() {
		out = append(out, a.Address.String())
	}
	return out, nil
}

// waitReady polls url until it answers 2xx, for up to d (not at all when d is 0).
func waitReady(ctx context.Context, url string, d time.Duration) error {
	if d == 0 {
		return nil
	}
	deadline := time.Now().Add(d)
	for {
		err := get(ctx, http.DefaultClient, url)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not ready after %s: %w", url, d, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// placeholders fills {busy}, {crowd}, {idle}, {contract} and {txids} from the chain o generates.
func placeholders(o chaingen.Options) (*strings.Replacer, error) {
	g, err := chaingen.New(o)
	if err != nil {
		return nil, err
	}
	ids, err := bench.TxIDs(o, 5)
	if err != nil {
		return nil, err
	}
	q := "tx_id=" + strings.Join(ids, "&tx_id=")
	return strings.NewReplacer("{busy}", g.Busy(), "{crowd}", g.Accounts()[2].Address.String(), "{idle}", g.Idle(),
		"{contract}", g.ContractID(), "{txids}", q), nil
}
