package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph/graph"
)

// responseMemo gives every response its own memo of parsed field arguments and collected
// fields (graph.WithResponseMemo): both are worked out once per response instead of once per
// object they are needed on.
type responseMemo struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = responseMemo{}

func (responseMemo) ExtensionName() string                          { return "ResponseMemo" }
func (responseMemo) Validate(schema graphql.ExecutableSchema) error { return nil }

func (responseMemo) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(graph.WithResponseMemo(ctx))
}
