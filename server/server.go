// Package server assembles stxgraph's public HTTP API: GraphQL at /graphql, GraphiQL, the REST
// adapter, /metrics, and the middleware every request passes through (logging, metrics,
// per-request loaders).
package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/gorilla/mux"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/rest"
)

// Config is what the public API needs.
type Config struct {
	Store         *db.Store
	ServerVersion string
	// Introspection enables GraphQL schema introspection (on by default in cmd).
	Introspection bool
}

// New returns the public HTTP handler.
func New(cfg Config) (http.Handler, error) {
	es := resolvers.NewExecutableSchema(&resolvers.Resolver{Store: cfg.Store})
	api, err := rest.New(es, rest.Options{ServerVersion: cfg.ServerVersion})
	if err != nil {
		return nil, err
	}
	m := newMetrics(cfg.Store.DB.DB)

	r := mux.NewRouter()
	r.Use(m.middleware, logRequests, loaders.Middleware(cfg.Store))
	r.Handle("/graphql", graphqlHandler(es, cfg)).Methods(http.MethodGet, http.MethodPost, http.MethodOptions)
	r.Handle("/graphiql", playground.Handler("stxgraph GraphiQL", "/graphql")).Methods(http.MethodGet)
	r.HandleFunc("/", index).Methods(http.MethodGet)
	r.Handle("/metrics", m.handler()).Methods(http.MethodGet)
	api.Register(r)
	return r, nil
}

func graphqlHandler(es graphql.ExecutableSchema, cfg Config) http.Handler {
	srv := handler.New(es)
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.SetErrorPresenter(resolvers.PresentError)
	if cfg.Introspection {
		srv.Use(extension.Introspection{})
	}
	return srv
}

const indexPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>stxgraph</title></head>
<body><h1>stxgraph</h1>
<p>The Stacks blockchain, indexed into PostgreSQL and served GraphQL-first.</p>
<ul>
<li><a href="/graphiql">GraphiQL</a>: explore the GraphQL API (POST/GET <code>/graphql</code>)</li>
<li><a href="/extended">/extended</a>: status and chain tip</li>
<li><a href="/metrics">/metrics</a>: Prometheus metrics</li>
</ul></body></html>`

func index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(indexPage)) //nolint:errcheck // client gone
}

// logRequests logs each request with its status and duration.
func logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		slog.InfoContext(r.Context(), "http request", "method", r.Method, "path", r.URL.Path,
			"status", sw.status, "duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
}
