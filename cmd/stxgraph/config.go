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
)

// config is the configuration shared by the subcommands. Every setting has a flag and an
// environment variable (the reference API's name where one exists); flags win over the
// environment, and DATABASE_URL wins over the PG_* variables.
type config struct {
	apiHost, eventHost string
	apiPort, eventPort int
	chainID            uint32
	databaseURL        string
	graphql            graphqlLimits
	// deprecatedEndpoints keeps the reference's deprecated REST paths on (else they answer 410).
	deprecatedEndpoints bool
}

// graphqlLimits protect /graphql from abusive queries; zero values take the server defaults.
type graphqlLimits struct {
	maxDepth, maxComplexity, maxPageSize int
	timeout                              time.Duration
	introspection                        bool
}

func (c *config) apiAddr() string   { return net.JoinHostPort(c.apiHost, strconv.Itoa(c.apiPort)) }
func (c *config) eventAddr() string { return net.JoinHostPort(c.eventHost, strconv.Itoa(c.eventPort)) }

// isTestnet reports whether the configured chain is a testnet (the faucets only run there).
func (c *config) isTestnet() bool { return c.chainID != 0x00000001 }

// databaseFlags registers the database settings on fs.
func (c *config) databaseFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.databaseURL, "database-url", defaultDatabaseURL(),
		"PostgreSQL URL (env DATABASE_URL, else built from PG_HOST, PG_PORT, PG_USER, PG_PASSWORD, PG_DATABASE)")
}

// serveFlags registers the listener and chain settings on fs.
func (c *config) serveFlags(fs *flag.FlagSet) {
	c.databaseFlags(fs)
	fs.StringVar(&c.apiHost, "host", env("STACKS_BLOCKCHAIN_API_HOST", "127.0.0.1"), "API listen host (env STACKS_BLOCKCHAIN_API_HOST)")
	fs.IntVar(&c.apiPort, "port", envInt("STACKS_BLOCKCHAIN_API_PORT", 3999), "API listen port (env STACKS_BLOCKCHAIN_API_PORT)")
	fs.StringVar(&c.eventHost, "event-host", env("STACKS_CORE_EVENT_HOST", "127.0.0.1"), "event-observer listen host (env STACKS_CORE_EVENT_HOST)")
	fs.IntVar(&c.eventPort, "event-port", envInt("STACKS_CORE_EVENT_PORT", 3700), "event-observer listen port (env STACKS_CORE_EVENT_PORT)")
	fs.Func("chain-id", "Stacks chain id, hex or decimal (env STACKS_CHAIN_ID, default 0x80000000)", func(s string) error {
		id, err := parseChainID(s)
		c.chainID = id
		return err
	})
	c.chainID, _ = parseChainID(env("STACKS_CHAIN_ID", "0x80000000"))
	fs.BoolVar(&c.deprecatedEndpoints, "deprecated-endpoints", envBool("ENABLE_DEPRECATED_ENDPOINTS", true), "serve the deprecated REST paths; false answers them with 410 (env ENABLE_DEPRECATED_ENDPOINTS)")
	g := &c.graphql
	fs.IntVar(&g.maxDepth, "graphql-max-depth", envInt("STXGRAPH_GRAPHQL_MAX_DEPTH", 0), "deepest GraphQL selection allowed (env STXGRAPH_GRAPHQL_MAX_DEPTH; 0 = server default)")
	fs.IntVar(&g.maxComplexity, "graphql-max-complexity", envInt("STXGRAPH_GRAPHQL_MAX_COMPLEXITY", 0), "highest GraphQL query cost allowed; lists cost their page size (env STXGRAPH_GRAPHQL_MAX_COMPLEXITY; 0 = server default)")
	fs.IntVar(&g.maxPageSize, "graphql-max-page-size", envInt("STXGRAPH_GRAPHQL_MAX_PAGE_SIZE", 0), "largest first/last/limit allowed (env STXGRAPH_GRAPHQL_MAX_PAGE_SIZE; 0 = server default)")
	fs.DurationVar(&g.timeout, "graphql-timeout", envDuration("STXGRAPH_GRAPHQL_TIMEOUT", 0), "time limit of one GraphQL query (env STXGRAPH_GRAPHQL_TIMEOUT; 0 = server default)")
	fs.BoolVar(&g.introspection, "graphql-introspection", envBool("STXGRAPH_GRAPHQL_INTROSPECTION", true), "allow schema introspection (env STXGRAPH_GRAPHQL_INTROSPECTION)")
}

func parseChainID(s string) (uint32, error) {
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid chain id %q: want e.g. 0x80000000", s)
	}
	return uint32(v), nil
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

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(env(key, "")); err == nil {
		return v
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(env(key, "")); err == nil {
		return v
	}
	return def
}

// envBool reads true/false (and the reference's legacy 1/0).
func envBool(key string, def bool) bool {
	switch strings.ToLower(env(key, "")) {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	return def
}
