// Package rest serves the legacy REST paths of the Stacks Blockchain API. Each route runs one
// fixed GraphQL operation in-process (parsed and validated once, at start-up) and reshapes its
// result into the reference's JSON; REST adds no SQL of its own.
package rest

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

//go:embed operations/*.graphql
var operationFiles embed.FS

// operations runs the embedded fixed operations against the executable schema.
type operations struct {
	exec    *executor.Executor
	queries map[string]string // operation name -> document
}

// newOperations loads every embedded operation and validates it against the schema, so that a
// schema change that breaks a REST path fails at start-up (and in tests), not on a request.
func newOperations(es graphql.ExecutableSchema) (*operations, error) {
	exec := executor.New(es)
	exec.SetQueryCache(lru.New[*ast.QueryDocument](256))
	exec.SetErrorPresenter(resolvers.PresentError)
	ops := &operations{exec: exec, queries: map[string]string{}}
	names, err := fs.Glob(operationFiles, "operations/*.graphql")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, err := operationFiles.ReadFile(n)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(n, "operations/"), ".graphql")
		ops.queries[name] = string(b)
		if _, errs := gqlparser.LoadQuery(es.Schema(), string(b)); errs != nil {
			return nil, fmt.Errorf("fixed operation %s is invalid: %v", n, errs)
		}
	}
	return ops, nil
}

// run executes the named operation with vars and decodes its data into out. GraphQL errors come
// back as *stxgraph.Error with the code the error presenter attached.
func (o *operations) run(ctx context.Context, name string, vars map[string]any, out any) error {
	q, ok := o.queries[name]
	if !ok {
		return fmt.Errorf("unknown fixed operation %q", name)
	}
	ctx = graphql.StartOperationTrace(ctx)
	opCtx, errs := o.exec.CreateOperationContext(ctx, &graphql.RawParams{Query: q, Variables: vars})
	if errs != nil {
		return firstError(errs)
	}
	h, ctx := o.exec.DispatchOperation(ctx, opCtx)
	resp := h(ctx)
	if len(resp.Errors) > 0 {
		return firstError(resp.Errors)
	}
	return json.Unmarshal(resp.Data, out)
}

func firstError(errs gqlerror.List) error {
	e := errs[0]
	code, _ := e.Extensions["code"].(string)
	switch code {
	case stxgraph.EINVALID, stxgraph.ENOTFOUND, stxgraph.EUNAVAILABLE, stxgraph.EFORBIDDEN,
		stxgraph.ERATELIMIT, stxgraph.EGONE, stxgraph.EINTERNAL:
		return &stxgraph.Error{Code: code, Message: e.Message}
	case "":
		return &stxgraph.Error{Code: stxgraph.EINTERNAL, Message: e.Message}
	default: // gqlgen's own validation codes: the fixed operation got a bad variable
		return &stxgraph.Error{Code: stxgraph.EINVALID, Message: e.Message}
	}
}
