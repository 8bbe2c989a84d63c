package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
)

// GraphQLRecordingFields is /graphql as New serves it, and the aliases of the fields that went
// through the field middleware so far.
func GraphQLRecordingFields(cfg Config) (http.Handler, func() []string) {
	cfg = cfg.withDefaults()
	es := resolvers.NewExecutableSchema(&resolvers.Resolver{Store: cfg.Store, MaxPageSize: cfg.MaxPageSize})
	srv := graphqlHandler(es, cfg, newAdmission(0), newBatching(cfg.Store, cfg.LoaderWait)).(*handler.Server)
	rec := &fieldRecorder{}
	srv.Use(rec)
	return loaders.Middleware(cfg.Store, cfg.LoaderWait)(srv), rec.seen
}

// fieldRecorder records the fields the field middleware is asked about.
type fieldRecorder struct {
	mu     sync.Mutex
	fields []string
}

func (*fieldRecorder) ExtensionName() string                   { return "FieldRecorder" }
func (*fieldRecorder) Validate(graphql.ExecutableSchema) error { return nil }

func (r *fieldRecorder) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	r.mu.Lock()
	r.fields = append(r.fields, graphql.GetFieldContext(ctx).Field.Alias)
	r.mu.Unlock()
	return next(ctx)
}

func (r *fieldRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.fields...)
}

// MoveLiterals is query as /graphql runs it (its literals moved into variables, or as written),
// with the variables it runs with, on a server whose query cache is new.
func MoveLiterals(schema *ast.Schema, query string, vars map[string]any) (string, map[string]any) {
	l := newLiteralVariables(schema, lru.New[*ast.QueryDocument](10))
	p := &graphql.RawParams{Query: query, Variables: vars}
	ctx := graphql.WithOperationContext(context.Background(), &graphql.OperationContext{})
	l.MutateOperationParameters(ctx, p) //nolint:errcheck // it reports none
	return p.Query, p.Variables
}
