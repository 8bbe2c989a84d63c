// Package server assembles stxgraph's public HTTP API: GraphQL at /graphql, GraphiQL, the REST
// adapter and its reference page (/docs), the explorer pages (/explorer/), the start page,
// /metrics, and their middleware (logging and metrics for every request, per-request loaders
// for /graphql and the REST routes).
package server

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
	"github.com/stxgraph/stxgraph/rest"
)

// Config is what the public API needs.
type Config struct {
	Store         *db.Store
	ServerVersion string
	// Introspection enables GraphQL schema introspection (on by default in cmd).
	Introspection bool
	// Events feeds GraphQL subscriptions (Store.Listen, or Replication.Listen when Store is a
	// replica); nil switches them off.
	Events *notices.Listener
	// Replication pairs Store, a streaming replica, with the primary; /extended then reports the
	// replication lag. Nil when Store is the primary.
	Replication *db.Replication
	// Operation limits; zero takes the Default… value (resolvers.DefaultMaxPageSize for pages).
	MaxDepth      int
	MaxComplexity int
	MaxPageSize   int
	QueryTimeout  time.Duration
	// DisableDeprecated answers the deprecated REST paths with 410 (ENABLE_DEPRECATED_ENDPOINTS=false).
	DisableDeprecated bool
	// LoaderWait bounds how long a loader collects keys before its batch runs (DefaultLoaderWait
	// when 0). Batches normally run earlier: as soon as every resolver of the request waits on a
	// loader (Batching).
	LoaderWait time.Duration
	// Faucet runs the testnet faucets (nil: they answer 403). TrustedProxies are the peers whose
	// X-Forwarded-For names the client for the faucets' per-client limits.
	Faucet         *faucet.Service
	TrustedProxies []netip.Prefix
	// ExamplePrincipal is the account GraphiQL's account example reads (a placeholder when "").
	ExamplePrincipal string
	// AnswerCacheBytes bounds the memory of REST answers and persisted GraphQL queries' answers
	// kept for repeated reads at one chain state (0: no cache). It is emptied on every notice of
	// Events.
	AnswerCacheBytes int64
}

// withDefaults fills the limits left at zero.
func (c Config) withDefaults() Config {
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.MaxComplexity <= 0 {
		c.MaxComplexity = DefaultMaxComplexity
	}
	if c.MaxPageSize <= 0 {
		c.MaxPageSize = resolvers.DefaultMaxPageSize
	}
	if c.QueryTimeout <= 0 {
		c.QueryTimeout = DefaultQueryTimeout
	}
	if c.LoaderWait <= 0 {
		c.LoaderWait = DefaultLoaderWait
	}
	return c
}

// New returns the public HTTP handler.
func New(cfg Config) (http.Handler, error) {
	cfg = cfg.withDefaults()
	es := resolvers.NewExecutableSchema(&resolvers.Resolver{Store: cfg.Store, MaxPageSize: cfg.MaxPageSize, Events: cfg.Events,
		Replication: cfg.Replication, Faucet: cfg.Faucet})
	batching := newBatching(cfg.Store, cfg.LoaderWait)
	admitted := newAdmission(cfg.Store.DB.DB.Stats().MaxOpenConnections)
	// Answers are kept per version of the chain state the notices name; without notices, no
	// change could be heard, so nothing is kept.
	var answers *respcache.Cache
	if cfg.Events != nil {
		answers = respcache.New(cfg.AnswerCacheBytes, cfg.Events)
	}
	api, err := rest.New(es, rest.Options{ServerVersion: cfg.ServerVersion, DisableDeprecated: cfg.DisableDeprecated,
		Extensions: operationExtensions(cfg, admitted, batching), Answers: answers})
	if err != nil {
		return nil, err
	}
	m := newMetrics(cfg.Store.DB.DB, cfg.Store.Statements, answers)
	admitted.register(m.registry)
	if cfg.Events != nil {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "stxgraph_notices_held", Help: "Chain notices heard and held until the replica replays their commits.",
		}, func() float64 { return float64(cfg.Events.Held()) }))
	}

	r := mux.NewRouter()
	r.NotFoundHandler = rest.NotFound()
	r.MethodNotAllowedHandler = rest.NotFound()
	r.Use(instrument(m))
	r.Handle("/graphiql", graphiql(cfg.ExamplePrincipal)).Methods(http.MethodGet)
	r.HandleFunc("/docs", restDocs).Methods(http.MethodGet)
	r.PathPrefix(assetPrefix).Handler(assetHandler(assets, "graphiql/dist", assetPrefix)).Methods(http.MethodGet, http.MethodHead)
	r.PathPrefix(explorerAssetPrefix).Handler(assetHandler(explorerAssets, "explorer/dist", explorerAssetPrefix)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/explorer", http.RedirectHandler(explorerPrefix, http.StatusMovedPermanently)).Methods(http.MethodGet)
	r.PathPrefix(explorerPrefix).HandlerFunc(explorer).Methods(http.MethodGet)
	r.HandleFunc("/", start(cfg.Store)).Methods(http.MethodGet)
	r.Handle("/metrics", m.handler()).Methods(http.MethodGet)
	// Only the routes that run GraphQL operations get loaders: /graphql and the REST adapter's.
	ops := r.NewRoute().Subrouter()
	ops.Use(loaders.Middleware(cfg.Store, cfg.LoaderWait), clientIP(cfg.TrustedProxies))
	var gql http.Handler = graphqlHandler(es, cfg, admitted, batching)
	if answers != nil {
		gql = newQueryAnswers(answers, es.Schema()).wrap(gql)
	}
	ops.Handle("/graphql", gql).Methods(http.MethodGet, http.MethodPost, http.MethodOptions)
	api.Register(ops)
	return r, nil
}

func graphqlHandler(es graphql.ExecutableSchema, cfg Config, admitted *admission, batching *Batching) http.Handler {
	srv := handler.New(es)
	// graphql-transport-ws (and the legacy graphql-ws) for subscriptions; pings keep proxies
	// from closing idle subscriptions.
	srv.AddTransport(transport.Websocket{KeepAlivePingInterval: 15 * time.Second, InitTimeout: 10 * time.Second})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(getTransport{})
	srv.AddTransport(postTransport{})
	parsed := lru.New[*ast.QueryDocument](1000)
	srv.SetQueryCache(parsed)
	srv.SetErrorPresenter(presentError(resolvers.PresentError))
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	// After the persisted queries, which may only name the text.
	srv.Use(newLiteralVariables(es.Schema(), parsed))
	srv.Use(limits{maxDepth: cfg.MaxDepth, maxComplexity: cfg.MaxComplexity, maxPageSize: cfg.MaxPageSize,
		introspection: cfg.Introspection}.withSchema(es.Schema()))
	for _, x := range operationExtensions(cfg, admitted, batching) {
		srv.Use(x)
	}
	return srv
}

// operationExtensions are the extensions every operation runs through, /graphql's and the REST
// adapter's fixed ones alike, outermost first: the time limit bounds the wait for admission, and
// an admitted operation's fields are batched.
func operationExtensions(cfg Config, admitted *admission, batching *Batching) []graphql.HandlerExtension {
	return []graphql.HandlerExtension{textInput{}, timeout(cfg.QueryTimeout), admitted, responseMemo{}, batching}
}

// instrument wraps the response writer once, and with the status it saw, logs each request and
// records it in m.
func instrument(m *metrics) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(sw, r)
			elapsed := time.Since(start)
			m.observe(r, sw.status, elapsed)
			logRequest(r, sw.status, elapsed)
		})
	}
}

// logRequest logs one line per request, with typed attributes so that no value is boxed. The
// record goes to the default handler directly: slog's Logger methods capture their caller's
// program counter for every record (runtime.Callers), a quarter of what logging a request cost,
// for a source location that no handler here writes.
func logRequest(r *http.Request, status int, elapsed time.Duration) {
	h := slog.Default().Handler()
	if !h.Enabled(r.Context(), slog.LevelInfo) {
		return
	}
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "http request", 0)
	rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000))
	h.Handle(r.Context(), rec) //nolint:errcheck // a log that cannot be written has nowhere to say so
}
