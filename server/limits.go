package server

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// Defaults of the operation limits (Config fields left at zero take them).
const (
	DefaultMaxDepth      = 12
	DefaultMaxComplexity = 200_000
	DefaultQueryTimeout  = 10 * time.Second
	// DefaultLoaderWait is only the loaders' safety net (batches run when the request's resolvers
	// all wait): long enough that a loaded machine scheduling a wide level's goroutines slowly
	// does not split its batch.
	DefaultLoaderWait = 250 * time.Millisecond
)

// listEstimate is the size assumed for a list field that takes no page argument (a block's
// microblocks, a transaction's events): such lists are short but not bounded by the query.
const listEstimate = 10

// pageArgs are the arguments that size a list field.
var pageArgs = []string{"first", "last", "limit"}

// limits rejects, after validation and before any resolver (so any SQL) runs, an operation that
// nests deeper than maxDepth, asks for a page larger than maxPageSize, or whose cost exceeds
// maxComplexity. The cost counts every field once per item its enclosing lists may return, with
// each list sized by its first/last/limit argument (its default when absent, listEstimate when
// the field takes none), so a wide query is priced by the rows it can make the server read.
type limits struct {
	maxDepth, maxComplexity, maxPageSize int
	// introspection allows __schema and __type. Rejecting them here gives the client a forbidden
	// error; left to gqlgen, a disabled introspection fails as an internal error.
	introspection bool
	// schemaCost and typeCost price __schema and __type at what they can return (every type,
	// field, argument and enum value of the schema; of its largest type), so that aliases of them
	// cannot multiply that work past the cost limit.
	schemaCost, typeCost int
}

// withSchema prices introspection for schema s.
func (l limits) withSchema(s *ast.Schema) limits {
	l.schemaCost, l.typeCost = 1, 1
	for _, def := range s.Types {
		size := 1 + len(def.Fields) + len(def.EnumValues)
		for _, f := range def.Fields {
			size += len(f.Arguments)
		}
		l.schemaCost = saturatingAdd(l.schemaCost, size)
		l.typeCost = max(l.typeCost, size)
	}
	return l
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = limits{}

func (limits) ExtensionName() string                          { return "OperationLimits" }
func (limits) Validate(schema graphql.ExecutableSchema) error { return nil }

func (l limits) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	w := walker{limits: l, vars: opCtx.Variables}
	cost, depth := w.selections(opCtx.Operation.SelectionSet)
	switch {
	case w.err != nil:
		return w.err
	case depth > l.maxDepth:
		return limitError("query nests %d levels deep, more than the limit of %d", depth, l.maxDepth)
	case cost > l.maxComplexity:
		return limitError("query could return about %d values (lists counted at their page size), more than the limit of %d; ask for smaller pages or fewer nested lists", cost, l.maxComplexity)
	}
	return nil
}

func limitError(format string, args ...any) *gqlerror.Error {
	return codedError(stxgraph.EINVALID, format, args...)
}

// codedError is a GraphQL error of the shared vocabulary, made outside the resolvers: its code
// in the extensions, as the error presenter sets it, and the *stxgraph.Error behind Unwrap, where
// the REST adapter reads it.
func codedError(code, format string, args ...any) *gqlerror.Error {
	err := stxgraph.Errorf(code, format, args...)
	return &gqlerror.Error{Message: err.Message, Err: err, Extensions: map[string]any{"code": code}}
}

type walker struct {
	limits
	vars map[string]any
	err  *gqlerror.Error
}

// selections returns the cost and depth of a selection set (fragments count as their fields).
func (w *walker) selections(set ast.SelectionSet) (cost, depth int) {
	for _, sel := range set {
		var c, d int
		switch s := sel.(type) {
		case *ast.Field:
			c, d = w.field(s)
		case *ast.FragmentSpread:
			c, d = w.selections(s.Definition.SelectionSet)
		case *ast.InlineFragment:
			c, d = w.selections(s.SelectionSet)
		}
		cost = saturatingAdd(cost, c)
		depth = max(depth, d)
	}
	return cost, depth
}

func (w *walker) field(f *ast.Field) (cost, depth int) {
	if strings.HasPrefix(f.Name, "__") { // introspection: priced by the schema, as GraphiQL's own query nests deep
		if !w.introspection && f.Name != "__typename" && w.err == nil {
			w.err = codedError(stxgraph.EFORBIDDEN, "schema introspection is disabled on this server")
		}
		switch f.Name {
		case "__schema":
			return max(w.schemaCost, 1), 0
		case "__type":
			return max(w.typeCost, 1), 0
		}
		return 1, 0
	}
	childCost, childDepth := w.selections(f.SelectionSet)
	return saturatingAdd(1, saturatingMul(w.listSize(f), childCost)), 1 + childDepth
}

// listSize is how many items field f may return at most (1 for a non-list field). The edges and
// nodes of a connection count once: the connection field's page size already multiplied them.
func (w *walker) listSize(f *ast.Field) int {
	if f.Definition == nil || strings.HasSuffix(f.ObjectDefinition.Name, "Connection") {
		return 1
	}
	args := f.ArgumentMap(w.vars)
	paged := false
	size := 0
	for _, name := range pageArgs {
		if f.Definition.Arguments.ForName(name) == nil {
			continue
		}
		paged = true
		n, ok := asInt(args[name])
		if !ok {
			continue
		}
		if n < 0 || n > int64(w.maxPageSize) {
			if w.err == nil {
				w.err = limitError("%s.%s: %s must be between 0 and %d", f.ObjectDefinition.Name, f.Name, name, w.maxPageSize)
			}
			continue
		}
		size = max(size, int(n))
	}
	switch {
	case paged && size == 0:
		return resolvers.DefaultPageSize
	case paged:
		return size
	case f.Definition.Type.Elem != nil:
		return listEstimate
	}
	return 1
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	}
	return 0, false
}

const maxInt = int(^uint(0) >> 1)

func saturatingAdd(a, b int) int {
	if a > maxInt-b {
		return maxInt
	}
	return a + b
}

func saturatingMul(a, b int) int {
	if a != 0 && b > maxInt/a {
		return maxInt
	}
	return a * b
}

// timeout bounds each query and mutation and turns running out of time into a clear error instead
// of whatever the interrupted statement reported. Subscriptions are exempt: their response
// handler waits for the next chain event.
type timeout time.Duration

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = timeout(0)

func (timeout) ExtensionName() string                          { return "QueryTimeout" }
func (timeout) Validate(schema graphql.ExecutableSchema) error { return nil }

func (t timeout) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if runs(ctx, ast.Subscription) {
		return next(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(t))
	defer cancel()
	resp := next(ctx)
	// The driver's socket deadline is the context's, and may fire a moment before the context
	// reports it: the clock decides.
	deadline, _ := ctx.Deadline()
	if resp != nil && len(resp.Errors) > 0 && (errors.Is(ctx.Err(), context.DeadlineExceeded) || !time.Now().Before(deadline)) {
		resp.Errors = gqlerror.List{codedError(stxgraph.EUNAVAILABLE, "query did not finish within %s; ask for less", time.Duration(t))}
	}
	return resp
}

// runs reports whether ctx runs an operation of kind op (errors found before an operation was
// chosen have no operation).
func runs(ctx context.Context, op ast.Operation) bool {
	return graphql.HasOperationContext(ctx) && graphql.GetOperationContext(ctx).Operation != nil &&
		graphql.GetOperationContext(ctx).Operation.Operation == op
}
