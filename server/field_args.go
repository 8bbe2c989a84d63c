package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph/graph"
)

// fieldArguments gives every response its own cache of parsed field arguments
// (graph.WithFieldArgs): a field's arguments are parsed once per response instead of once per
// object it is resolved on.
type fieldArguments struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = fieldArguments{}

func (fieldArguments) ExtensionName() string                          { return "FieldArguments" }
func (fieldArguments) Validate(schema graphql.ExecutableSchema) error { return nil }

func (fieldArguments) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return next(graph.WithFieldArgs(ctx))
}
