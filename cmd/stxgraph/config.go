package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// config is the configuration shared by the subcommands. Every setting is a flag, and most
// have an environment variable (the reference API's name where one exists): a flag given on
// the command line wins, else the variable, else the default. Variables are parsed by their
// flag, so a malformed value stops the command with a message instead of being ignored.
type config struct {
	apiHost, eventHost string
	apiPort, eventPort int
	chainID            chainID
	databaseURL        string
	// dbPoolMax bounds each process's connections to a database.
	dbPoolMax poolSize
	// databaseReadURL is a streaming replica of databaseURL that serves the API's reads ("": the
	// primary serves them).
	databaseReadURL string
	// noIngest runs an API process only: no event observer, no migrations, no writes but the
	// faucets'.
	noIngest bool
	observer ingest.Options
	graphql  graphqlLimits
	// deprecatedEndpoints keeps the reference's deprecated REST paths on (else they answer 410).
	deprecatedEndpoints bool
	faucet              faucetConfig
	// demo loads the generated demo chain into an empty database at start.
	demo bool
	// demoChain is the chain --demo loads (demo.Chain when zero; tests load a smaller one).
	demoChain chaingen.Options
	// examplePrincipal is the account GraphiQL's account example opens with (the demo's busiest).
	examplePrincipal string
	// answerCacheBytes bounds the in-memory cache of REST answers (0 turns it off).
	answerCacheBytes int64
	// pprofAddr serves Go's runtime profiles (net/http/pprof) on its own listener ("": off).
	pprofAddr string
}

// graphqlLimits protect /graphql from abusive queries; zero values take the server defaults.
type graphqlLimits struct {
	maxDepth, maxComplexity, maxPageSize int
	timeout                              time.Duration
	introspection                        bool
}

func (c *config) apiAddr() string   { return net.JoinHostPort(c.apiHost, strconv.Itoa(c.apiPort)) }
func (c *config) eventAddr() string { return net.JoinHostPort(c.eventHost, strconv.Itoa(c.eventPort)) }

// flagEnv names the environment variable behind each flag that has one.
var flagEnv = map[string]string{
	"host":                   "STACKS_BLOCKCHAIN_API_HOST",
	"port":                   "STACKS_BLOCKCHAIN_API_PORT",
	"event-host":             "STACKS_CORE_EVENT_HOST",
	"event-port":             "STACKS_CORE_EVENT_PORT",
	"event-body-limit":       "STACKS_CORE_EVENT_BODY_LIMIT",
	"store-raw-events":       "STACKS_API_STORE_RAW_EVENTS",
	"chain-id":               "STACKS_CHAIN_ID",
	"ordinals-ingest-token":  "ORDINALS_INGEST_TOKEN",
	"deprecated-endpoints":   "ENABLE_DEPRECATED_ENDPOINTS",
	"graphql-max-depth":      "STXGRAPH_GRAPHQL_MAX_DEPTH",
	"answer-cache-bytes":     "STXGRAPH_ANSWER_CACHE_BYTES",
	"pprof-addr":             "STXGRAPH_PPROF_ADDR",
	"graphql-max-complexity": "STXGRAPH_GRAPHQL_MAX_COMPLEXITY",
	"graphql-max-page-size":  "STXGRAPH_GRAPHQL_MAX_PAGE_SIZE",
	"graphql-timeout":        "STXGRAPH_GRAPHQL_TIMEOUT",
	"graphql-introspection":  "STXGRAPH_GRAPHQL_INTROSPECTION",
	"database-read-url":      "DATABASE_READ_URL",
	"db-pool-max":            "PG_CONNECTION_POOL_MAX",
	"no-ingest":              "STXGRAPH_NO_INGEST",
	// Faucets (cmd/stxgraph/faucet.go).
	"stacks-core-rpc-host":  "STACKS_CORE_RPC_HOST",
	"stacks-core-rpc-port":  "STACKS_CORE_RPC_PORT",
	"faucet-node-host":      "STACKS_FAUCET_NODE_HOST",
	"faucet-node-port":      "STACKS_FAUCET_NODE_PORT",
	"faucet-private-key":    "FAUCET_PRIVATE_KEY",
	"faucet-stx-amount":     "STXGRAPH_FAUCET_STX_AMOUNT",
	"faucet-stacking-pad":   "STXGRAPH_FAUCET_STACKING_PAD",
	"faucet-rate-limit":     "TESTNET_FAUCETS_RATE_LIMIT_ENABLED",
	"faucet-ip-limit":       "STXGRAPH_FAUCET_IP_LIMIT",
	"trusted-proxies":       "STXGRAPH_TRUSTED_PROXIES",
	"btc-rpc-host":          "BTC_RPC_HOST",
	"btc-rpc-port":          "BTC_RPC_PORT",
	"btc-rpc-user":          "BTC_RPC_USER",
	"btc-rpc-pw":            "BTC_RPC_PW",
	"btc-faucet-pk":         "BTC_FAUCET_PK",
	"btc-network":           "BTC_NETWORK",
	"btc-faucet-amount":     "BTC_FAUCET_AMOUNT",
	"btc-fallback-fee-rate": "BTC_FALLBACK_FEE_RATE",
	"btc-rpc-backend":       "BTC_RPC_BACKEND",
}

// withEnv appends the flag's environment variable to its help text.
func withEnv(name, text string) string {
	if e, ok := flagEnv[name]; ok {
		return text + " (env " + e + ")"
	}
	return text
}

// parseFlags parses args, then applies the environment variable of every flag that the
// command line did not set.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v := strings.TrimSpace(os.Getenv(flagEnv[f.Name]))
		if err != nil || set[f.Name] || flagEnv[f.Name] == "" || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("invalid %s=%q: %v", flagEnv[f.Name], v, e)
			fmt.Fprintln(fs.Output(), err)
		}
	})
	return err
}

// databaseFlags registers the database settings on fs.
func (c *config) databaseFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.databaseURL, "database-url", defaultDatabaseURL(),
		"PostgreSQL URL (env DATABASE_URL, else built from PG_HOST, PG_PORT, PG_USER, PG_PASSWORD, PG_DATABASE)")
	c.dbPoolMax = poolSize(db.DefaultMaxOpen())
	fs.Var(&c.dbPoolMax, "db-pool-max", withEnv("db-pool-max", "most connections open to each database; "+
		"a few per PostgreSQL core serve the most requests, since more backends than cores only take turns"))
}

// pool sizes the connection pools. An idle connection stays open for minutes, not seconds: a new
// backend loads its catalog caches and plans every statement again, so after a pause of 40 s
// with connections closed at 30 s of idleness the REST mix's first 2 s cost PostgreSQL 1.16 ms a
// request against 0.65 warm, at a p99 of 185 ms against 91; kept, 0.66 ms and 98.
func (c *config) pool() db.PoolOptions {
	return db.PoolOptions{MaxOpen: int(c.dbPoolMax), MaxIdleTime: 5 * time.Minute}
}

// poolSize is a connection count flag: at least one, since the pool reads 0 as no bound.
type poolSize int

func (p *poolSize) String() string { return strconv.Itoa(int(*p)) }

func (p *poolSize) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("want a number of connections, 1 or more")
	}
	*p = poolSize(n)
	return nil
}

// serveFlags registers the listener, chain and API settings on fs.
func (c *config) serveFlags(fs *flag.FlagSet) {
	c.databaseFlags(fs)
	fs.StringVar(&c.databaseReadURL, "database-read-url", "", withEnv("database-read-url",
		"PostgreSQL URL of a streaming replica of --database-url that serves the API's reads; empty reads from --database-url"))
	fs.BoolVar(&c.noIngest, "no-ingest", false, withEnv("no-ingest", "serve the API only: no event observer, no migrations "+
		"(the schema must be current), no writes but the faucets' rows; run any number of these beside one ingesting process"))
	fs.StringVar(&c.apiHost, "host", "127.0.0.1", withEnv("host", "API listen host"))
	fs.IntVar(&c.apiPort, "port", 3999, withEnv("port", "API listen port"))
	fs.StringVar(&c.eventHost, "event-host", "127.0.0.1", withEnv("event-host", "event-observer listen host"))
	fs.IntVar(&c.eventPort, "event-port", 3700, withEnv("event-port", "event-observer listen port"))
	fs.Int64Var(&c.observer.BodyLimit, "event-body-limit", ingest.DefaultBodyLimit, withEnv("event-body-limit", "largest event-observer message accepted, in bytes"))
	fs.BoolVar(&c.observer.StoreRawEvents, "store-raw-events", true, withEnv("store-raw-events", "keep every applied message for export-events"))
	fs.StringVar(&c.observer.OrdinalsToken, "ordinals-ingest-token", "", withEnv("ordinals-ingest-token",
		"bearer token an ordinals indexer must send to "+ingest.PathOrdinals+"; empty turns that path off"))
	c.chainID = 0x80000000
	fs.Var(&c.chainID, "chain-id", withEnv("chain-id", "Stacks chain id of the network, hex or decimal"))
	fs.BoolVar(&c.demo, "demo", false, "load a small generated testnet chain (blocks, transfers, contract calls, events, a fork, "+
		"mempool) into an empty database at the first start, and refuse stacks-node events; without --database-url "+
		"the database is "+demoDatabase)
	fs.BoolVar(&c.deprecatedEndpoints, "deprecated-endpoints", true, withEnv("deprecated-endpoints", "serve the deprecated REST paths; false answers them with 410"))
	g := &c.graphql
	fs.IntVar(&g.maxDepth, "graphql-max-depth", 0, withEnv("graphql-max-depth", "deepest GraphQL selection allowed; 0 = server default"))
	fs.IntVar(&g.maxComplexity, "graphql-max-complexity", 0, withEnv("graphql-max-complexity", "highest GraphQL query cost allowed, lists costing their page size; 0 = server default"))
	fs.IntVar(&g.maxPageSize, "graphql-max-page-size", 0, withEnv("graphql-max-page-size", "largest first/last/limit allowed; 0 = server default"))
	fs.DurationVar(&g.timeout, "graphql-timeout", 0, withEnv("graphql-timeout", "time limit of one GraphQL query; 0 = server default"))
	fs.BoolVar(&g.introspection, "graphql-introspection", true, withEnv("graphql-introspection", "allow schema introspection"))
	fs.Int64Var(&c.answerCacheBytes, "answer-cache-bytes", 64<<20, withEnv("answer-cache-bytes",
		"memory for REST answers kept until the chain tip or mempool changes, in bytes; 0 turns the cache off"))
	c.profileFlags(fs)
	c.faucet.flags(fs)
}

// profileFlags registers the runtime profiles' listener, which serve and the file commands share.
func (c *config) profileFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.pprofAddr, "pprof-addr", "", withEnv("pprof-addr",
		"serve Go's CPU, heap and goroutine profiles (/debug/pprof/) on this host:port, e.g. 127.0.0.1:6060; off when empty"))
}

// chainID is a Stacks chain id flag that accepts hex (0x80000000) or decimal.
type chainID uint32

func (c *chainID) String() string { return fmt.Sprintf("0x%08x", uint32(*c)) }

func (c *chainID) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return fmt.Errorf("want a chain id such as 0x80000000 (testnet) or 0x00000001 (mainnet)")
	}
	*c = chainID(v)
	return nil
}

// demoDatabase is the database --demo uses unless one is given.
const demoDatabase = "stxgraph_demo"

// databaseGiven reports whether the database was chosen by the flag or the environment.
func databaseGiven(fs *flag.FlagSet) bool {
	given := os.Getenv("DATABASE_URL") != "" || os.Getenv("PG_DATABASE") != ""
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "database-url" })
	return given
}

// withDatabase returns the PostgreSQL URL dsn naming database name instead.
func withDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func defaultDatabaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	u := url.URL{
		Scheme:   "postgres",
		Host:     net.JoinHostPort(env("PG_HOST", "127.0.0.1"), env("PG_PORT", "5432")),
		Path:     "/" + env("PG_DATABASE", "stxgraph"),
		RawQuery: "sslmode=disable",
	}
	if pw := os.Getenv("PG_PASSWORD"); pw != "" {
		u.User = url.UserPassword(env("PG_USER", "postgres"), pw)
	} else {
		u.User = url.User(env("PG_USER", "postgres"))
	}
	return u.String()
}

func env(key, def string) string {
	if v := strings.TrimSpace(os.Getenv(key)); v != "" {
		return v
	}
	return def
}
