package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/demo"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

func serveCommand(args []string, _, stderr io.Writer) int {
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: stxgraph serve [flags]\n\n"+
			"Serves GraphQL (/graphql, /graphiql), the REST paths (/extended/…) and /metrics, and\n"+
			"listens for stacks-node event-observer messages. Creates the database when it is\n"+
			"missing and applies migrations at start. Stops gracefully on SIGINT/SIGTERM.\n"+
			"With --demo it first loads a generated demo chain into an empty database ("+demoDatabase+"\n"+
			"unless --database-url names one); without it, it serves only what a stacks-node sends.\n"+
			"With --database-read-url the API reads from a streaming replica; with --no-ingest it serves\n"+
			"the API only (no event observer, no migrations), beside one ingesting process.\n\nFlags:")
		fs.PrintDefaults()
	}
	cfg.serveFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return exitCode(err)
	}
	if cfg.demo && !databaseGiven(fs) {
		dsn, err := withDatabase(cfg.databaseURL, demoDatabase)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		cfg.databaseURL = dsn
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	tuneGC(cfg.answerCacheBytes)
	if err := serve(ctx, &cfg, nil); err != nil {
		slog.Error("serve failed", "err", err)
		return 1
	}
	return 0
}

// Garbage collection of the API process: its heap is mostly each request's short-lived
// objects (a page of 20 blocks with their transactions allocates 4 MB), so letting it grow
// further between collections than Go's default buys CPU for requests. The soft memory limit is
// what bounds it: the answer cache's bytes, which stay live, plus requestHeap of garbage
// between collections. A larger heap does not pay: every page the heap grows into is faulted in
// and zeroed by the kernel, which under the load benchmark's mixes cost the first 12 s of a
// fresh server about a tenth more CPU with a 1 GiB limit than with 384 MiB (and a peak RSS of
// 880 MB against 390), and the heaviest reads (a GraphQL front page of 20 blocks × 20
// transactions, block pages) ran no faster with the larger heap. GOGC and GOMEMLIMIT, when set,
// win.
const (
	gcPercent   = 1000
	requestHeap = 320 << 20
)

func tuneGC(answerCacheBytes int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(requestHeap + answerCacheBytes)
	}
}

// serve runs until ctx is done. ready, when not nil, receives the bound API and event-observer
// addresses once both listen (tests bind port 0 and read them; the second is "" with
// --no-ingest).
func serve(ctx context.Context, cfg *config, ready chan<- [2]string) error {
	if cfg.noIngest && cfg.demo {
		return errors.New("--demo loads a chain, which a --no-ingest process never does: start the ingesting process with --demo")
	}
	open := openStore
	if cfg.noIngest {
		open = openCurrent
	}
	store, err := open(ctx, cfg.databaseURL, cfg.pool())
	if err != nil {
		return err
	}
	defer store.Close()
	reads, rep, err := openReplica(ctx, cfg, store)
	if err != nil {
		return err
	}
	if rep != nil {
		defer reads.Close()
	}

	demoDB, err := prepareDemo(ctx, cfg, store)
	if err != nil {
		return err
	}
	// One LISTEN connection feeds every subscription. NOTIFY is not replicated, so it is on the
	// primary; with a replica, notices wait for it to replay their commits.
	var events *notices.Listener
	if rep != nil {
		events, err = rep.Listen(ctx)
	} else {
		events, err = store.Listen(ctx)
	}
	if err != nil {
		return err
	}
	// The faucets' rate-limit and nonce rows are written, so they go to the primary.
	faucets, closeFaucets, err := cfg.faucet.service(store, uint32(cfg.chainID))
	if err != nil {
		return err
	}
	defer closeFaucets()
	api, err := server.New(server.Config{
		Store: reads, Replication: rep, ServerVersion: "stxgraph " + version, Events: events,
		Introspection: cfg.graphql.introspection, MaxDepth: cfg.graphql.maxDepth,
		MaxComplexity: cfg.graphql.maxComplexity, MaxPageSize: cfg.graphql.maxPageSize,
		QueryTimeout: cfg.graphql.timeout, DisableDeprecated: !cfg.deprecatedEndpoints,
		Faucet: faucets, TrustedProxies: cfg.faucet.trustedProxies,
		ExamplePrincipal: cfg.examplePrincipal, AnswerCacheBytes: cfg.answerCacheBytes,
	})
	if err != nil {
		return err
	}
	servers := []*http.Server{server.HTTPServer(cfg.apiAddr(), api, server.HTTPLimits{}, true)}
	if !cfg.noIngest {
		observer := cfg.observer
		observer.ChainID = uint32(cfg.chainID)
		observer.DemoDatabase = demoDB
		servers = append(servers, server.HTTPServer(cfg.eventAddr(), ingest.NewServer(store, observer), server.HTTPLimits{}, false))
	}
	if cfg.pprofAddr != "" {
		servers = append(servers, profilesServer(cfg.pprofAddr))
	}
	return runServers(ctx, servers, ready)
}

// profiles serves the runtime profiles, on a listener of their own so that they are never
// exposed with the API.
func profiles() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// profilesServer is the server of the runtime profiles on addr.
func profilesServer(addr string) *http.Server {
	return &http.Server{Addr: addr, Handler: profiles(), ReadHeaderTimeout: 10 * time.Second}
}

// serveProfiles serves the runtime profiles on addr beside a command that is not a server, such
// as an import, until the returned func closes the listener.
func serveProfiles(addr string) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	srv := profilesServer(addr)
	go srv.Serve(ln) //nolint:errcheck // ends with ErrServerClosed when closed
	return func() { srv.Close() }, nil
}

// openReplica opens the read database when one is configured, checks that it is a replica of
// store whose schema is current, and returns it with the pair; else it returns store and nil.
func openReplica(ctx context.Context, cfg *config, store *db.Store) (*db.Store, *db.Replication, error) {
	if cfg.databaseReadURL == "" {
		return store, nil, nil
	}
	reads := db.Open(cfg.databaseReadURL, cfg.pool())
	rep, err := db.NewReplication(ctx, store, reads)
	// A database just created on the primary reaches the replica a moment later.
	for deadline := time.Now().Add(replicaSchemaWait); db.IsMissingDatabase(err) && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(100 * time.Millisecond):
			rep, err = db.NewReplication(ctx, store, reads)
		}
	}
	if err == nil {
		err = awaitReplicaSchema(ctx, rep)
	}
	if err != nil {
		reads.Close()
		return nil, nil, fmt.Errorf("--database-read-url: %w", err)
	}
	slog.Info("reading from a replica", "database", databaseName(cfg.databaseReadURL))
	return reads, rep, nil
}

// replicaSchemaWait bounds how long start-up waits for the replica to replay the primary's
// migrations.
const replicaSchemaWait = time.Minute

// awaitReplicaSchema returns once the replica has the primary's schema: migrations applied at
// start reach it a moment later.
func awaitReplicaSchema(ctx context.Context, rep *db.Replication) error {
	pending, err := rep.Replica.SchemaPending(ctx)
	if err == nil && len(pending) == 0 {
		return nil
	}
	target, lerr := rep.CommittedLSN(ctx)
	if lerr != nil {
		return lerr
	}
	slog.Info("waiting for the replica to replay the schema", "primary_lsn", target.String())
	wctx, cancel := context.WithTimeout(ctx, replicaSchemaWait)
	defer cancel()
	if err := rep.WaitReplayed(wctx, target); err != nil {
		return fmt.Errorf("the replica did not replay the primary's schema within %s: %w", replicaSchemaWait, err)
	}
	pending, err = rep.Replica.SchemaPending(ctx)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("the schema is not current: migrations %s are not applied", strings.Join(pending, ", "))
	}
	return nil
}

// prepareDemo loads the demo chain when cfg asks for it, and reports whether the database holds
// the demo chain (then the event observer refuses every message).
func prepareDemo(ctx context.Context, cfg *config, store *db.Store) (bool, error) {
	if cfg.demo {
		start := time.Now()
		chain := cfg.demoChain
		if chain == (chaingen.Options{}) {
			chain = demo.Chain
		}
		sum, err := demo.Load(ctx, store, uint32(cfg.chainID), chain)
		if err != nil {
			return false, fmt.Errorf("--demo: %w", err)
		}
		if sum.Loaded {
			slog.Info("loaded the generated demo chain", "database", databaseName(cfg.databaseURL), "blocks", sum.Blocks,
				"txs", sum.Txs, "microblocks", sum.Microblocks, "fork_blocks", sum.ForkBlocks, "mempool_txs", sum.MempoolTxs, "busy_account", sum.Busy,
				"contract", sum.Contract, "duration", time.Since(start).Round(time.Millisecond).String())
		} else {
			slog.Info("the demo chain is loaded already, not loading it again", "database", databaseName(cfg.databaseURL),
				"blocks", sum.Blocks, "txs", sum.Txs, "busy_account", sum.Busy)
		}
		cfg.examplePrincipal = sum.Busy
		slog.Info("the demo database takes no stacks-node events; to index a real chain, start without --demo " +
			"(stxgraph serve, database " + databaseName(defaultDatabaseURL()) + ")")
		return true, nil
	}
	mark, err := store.DemoChain(ctx)
	if err != nil {
		return false, err
	}
	if mark != nil {
		slog.Warn("the database holds the generated demo chain: serving it, and refusing stacks-node events",
			"database", databaseName(cfg.databaseURL), "blocks", mark.Blocks)
		cfg.examplePrincipal = demo.Busy()
	}
	return mark != nil, nil
}

// databaseName is the database a PostgreSQL URL names, for logs (no credentials).
func databaseName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(u.Path, "/")
}

// openStore creates the database when missing, applies migrations and returns the store.
func openStore(ctx context.Context, dsn string, pool db.PoolOptions) (*db.Store, error) {
	if err := db.EnsureDatabase(ctx, dsn); err != nil {
		return nil, err
	}
	store := db.Open(dsn, pool)
	applied, err := store.Migrate(ctx)
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if len(applied) > 0 {
		slog.Info("applied migrations", "migrations", applied)
	}
	return store, nil
}

// openCurrent opens the database of an API process that does not ingest: it neither creates the
// database nor migrates it, and refuses to start unless the schema is the one this binary has.
func openCurrent(ctx context.Context, dsn string, pool db.PoolOptions) (*db.Store, error) {
	store := db.Open(dsn, pool)
	pending, err := store.SchemaPending(ctx)
	if err == nil && len(pending) > 0 {
		err = fmt.Errorf("migrations %s are not applied", strings.Join(pending, ", "))
	}
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("--no-ingest: the schema of %s is not current (%w): start the ingesting process "+
			"(stxgraph serve) or run stxgraph migrate up first", databaseName(dsn), err)
	}
	return store, nil
}

// runServers listens on every server's address, serves until ctx is done or one server fails,
// then stops accepting on all of them and waits (up to 30 s) for in-flight requests.
func runServers(ctx context.Context, servers []*http.Server, ready chan<- [2]string) error {
	errc := make(chan error, len(servers))
	var addrs [2]string
	for i, srv := range servers {
		ln, err := net.Listen("tcp", srv.Addr)
		if err != nil {
			for _, started := range servers[:i] {
				started.Close()
			}
			return err
		}
		if i < len(addrs) {
			addrs[i] = ln.Addr().String()
		}
		slog.Info("listening", "addr", ln.Addr().String())
		go func() { errc <- srv.Serve(ln) }()
	}
	if ready != nil {
		ready <- addrs
	}
	var failed error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			failed = err
		}
	}
	slog.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdownCtx); err != nil && failed == nil {
			failed = err
		}
	}
	return failed
}
