package rest

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	genql "github.com/Khan/genqlient/graphql"
	gojson "github.com/goccy/go-json"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/resolvers"
)

//go:embed operations/*.graphql
var operationFiles embed.FS

// operations runs the fixed operations against the executable schema: the generated functions
// send each operation's own document (operations_gen.go), the same selection as the embedded
// files, which are validated together once (they share fragments).
type operations struct {
	exec *executor.Executor
}

// newOperations loads the embedded operations and validates them against the schema, so that a
// schema change that breaks a REST path fails at start-up (and in tests), not on a request.
func newOperations(es graphql.ExecutableSchema, extensions []graphql.HandlerExtension) (*operations, error) {
	exec := executor.New(es)
	for _, x := range extensions {
		exec.Use(x)
	}
	exec.SetQueryCache(lru.New[*ast.QueryDocument](128))
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
	if _, errs := gqlparser.LoadQuery(es.Schema(), doc.String()); errs != nil {
		return nil, fmt.Errorf("fixed operations are invalid: %v", errs)
	}
	return &operations{exec: exec}, nil
}

// response executes a fixed operation and returns the whole response, error extensions included.
func (o *operations) response(ctx context.Context, document, name string, vars map[string]any) *graphql.Response {
	ctx = graphql.StartOperationTrace(ctx)
	opCtx, errs := o.exec.CreateOperationContext(ctx, &graphql.RawParams{Query: document, OperationName: name, Variables: vars})
	if errs != nil {
		return &graphql.Response{Errors: errs}
	}
	h, ctx := o.exec.DispatchOperation(ctx, opCtx)
	return h(ctx)
}

// MakeRequest runs one of the generated operation functions (operations_gen.go) in-process: its
// document is the operation as generated (with the __typename its abstract types decode by), the
// same selection as the embedded one validated at start-up, and its data decodes into the
// generated response type. The decoder is goccy/go-json's, which reads the generated types
// (their UnmarshalJSON methods included) as encoding/json does in a third of its time and a
// fifth of its allocations: decoding is most of what a typed route adds to its operation.
func (o *operations) MakeRequest(ctx context.Context, req *genql.Request, resp *genql.Response) error {
	vars, err := variables(req.Variables)
	if err != nil {
		return err
	}
	ctx, release := graph.LendResponseBuffer(ctx)
	defer release()
	r := o.response(ctx, req.Query, req.OpName, vars)
	if len(r.Errors) > 0 {
		return firstError(r.Errors)
	}
	// The decoder copies the data first, so nothing decoded refers to the buffer.
	return gojson.Unmarshal(r.Data, resp.Data)
}

// variables turns the generated functions' variables struct into the executor's map without a
// JSON round trip: each member under its JSON name, as the plain value gqlgen's unmarshalers take
// (a pointer's target or nil, a named string or int as its underlying kind, a list as []any).
func variables(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	s := reflect.Indirect(reflect.ValueOf(v))
	if s.Kind() != reflect.Struct {
		return nil, fmt.Errorf("variables of type %T", v)
	}
	vars := make(map[string]any, s.NumField())
	for i := range s.NumField() {
		name, _, _ := strings.Cut(s.Type().Field(i).Tag.Get("json"), ",")
		val, err := plain(s.Field(i))
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", name, err)
		}
		vars[name] = val
	}
	return vars, nil
}

// plain is v as the value a decoded JSON request would hold.
func plain(v reflect.Value) (any, error) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return plain(v.Elem())
	case reflect.String:
		return v.String(), nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return int(v.Int()), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		list := make([]any, v.Len())
		for i := range list {
			var err error
			if list[i], err = plain(v.Index(i)); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	return nil, fmt.Errorf("unsupported kind %s", v.Kind())
}

// firstError is the first of an operation's errors. A resolver's error already unwraps to an
// *stxgraph.Error (resolvers.PresentError); the others are gqlgen's own validation of a
// variable: the fixed operation got a bad value.
func firstError(errs gqlerror.List) error {
	if e := errs[0]; errors.As(e, new(*stxgraph.Error)) {
		return e
	}
	return &stxgraph.Error{Code: stxgraph.EINVALID, Message: errs[0].Message}
}
