package server

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph/graph"
)

// responseMemo gives every operation its own memo (graph.StartResponseMemo) of its fields' parsed
// arguments and of whether their selections read leaves alone: both are worked out once per
// operation instead of once per object they are needed on. The fields its objects collect are
// kept with the document's plans instead (Batching, graph.ShareCollectedFields).
type responseMemo struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = responseMemo{}

func (responseMemo) ExtensionName() string                          { return "ResponseMemo" }
func (responseMemo) Validate(schema graphql.ExecutableSchema) error { return nil }

func (responseMemo) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	graph.StartResponseMemo(oc)
	return nil
}
