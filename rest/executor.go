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

// operations runs the embedded fixed operations against the executable schema. The files form
// one document (operations share fragments), so it is parsed and validated once and every
// request names the operation it runs.
type operations struct {
	exec     *executor.Executor
	document string
	names    map[string]bool
}

// newOperations loads the embedded operations and validates them against the schema, so that a
// schema change that breaks a REST path fails at start-up (and in tests), not on a request.
func newOperations(es graphql.ExecutableSchema, extensions []graphql.HandlerExtension) (*operations, error) {
	exec := executor.New(es)
	for _, x := range extensions {
		exec.Use(x)
	}
	exec.SetQueryCache(lru.New[*ast.QueryDocument](16))
	exec.SetErrorPresenter(resolvers.PresentError)
	files, err := fs.Glob(operationFiles, "operations/*.graphql")
	if err != nil {
		return nil, err
	}
	var doc strings.Builder
	for _, f := range files {
		b, err := operationFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		doc.Write(b)
		doc.WriteByte('\n')
	}
	parsed, errs := gqlparser.LoadQuery(es.Schema(), doc.String())
	if errs != nil {
		return nil, fmt.Errorf("fixed operations are invalid: %v", errs)
	}
	ops := &operations{exec: exec, document: doc.String(), names: map[string]bool{}}
	for _, op := range parsed.Operations {
		ops.names[op.Name] = true
	}
	return ops, nil
}

// raw executes the named operation with vars and returns its data. GraphQL errors come back as
// *stxgraph.Error with the code the error presenter attached.
func (o *operations) raw(ctx context.Context, name string, vars map[string]any) (json.RawMessage, error) {
	if !o.names[name] {
		return nil, fmt.Errorf("unknown fixed operation %q", name)
	}
	ctx = graphql.StartOperationTrace(ctx)
	opCtx, errs := o.exec.CreateOperationContext(ctx, &graphql.RawParams{Query: o.document, OperationName: name, Variables: vars})
	if errs != nil {
		return nil, firstError(errs)
	}
	h, ctx := o.exec.DispatchOperation(ctx, opCtx)
	resp := h(ctx)
	if len(resp.Errors) > 0 {
		return nil, firstError(resp.Errors)
	}
	return resp.Data, nil
}

// run executes the named operation and decodes its data into out.
func (o *operations) run(ctx context.Context, name string, vars map[string]any, out any) error {
	data, err := o.raw(ctx, name, vars)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func firstError(errs gqlerror.List) error {
	e := errs[0]
	code, _ := e.Extensions["code"].(string)
	switch code {
	case stxgraph.EINVALID, stxgraph.ENOTFOUND, stxgraph.EUNAVAILABLE, stxgraph.EFORBIDDEN,
		stxgraph.ERATELIMIT, stxgraph.ECONFLICT, stxgraph.EGONE, stxgraph.ECANCELED, stxgraph.EINTERNAL:
		return &stxgraph.Error{Code: code, Message: e.Message}
	case "":
		return &stxgraph.Error{Code: stxgraph.EINTERNAL, Message: e.Message}
	default: // gqlgen's own validation codes: the fixed operation got a bad variable
		return &stxgraph.Error{Code: stxgraph.EINVALID, Message: e.Message}
	}
}
