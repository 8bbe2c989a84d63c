package resolvers

import (
	"context"
	"errors"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/graph"
)

func (r *Resolver) Mutation() graph.MutationResolver { return mutationResolver{r} }

type mutationResolver struct{ *Resolver }

// RetryAfterExtension is the GraphQL error extension that carries, on a rate-limited faucet
// request, the seconds to wait before asking again (REST sends it as Retry-After).
const RetryAfterExtension = "retryAfter"

func (r mutationResolver) FaucetStx(ctx context.Context, address string, stacking *bool, requestID *string) (*graph.FaucetResult, error) {
	if r.Faucet == nil {
		return nil, stxgraph.Errorf(stxgraph.EFORBIDDEN, "STX faucet is not fully configured")
	}
	sent, err := r.Faucet.STX(ctx, faucet.Request{Address: address, Stacking: stacking != nil && *stacking, ID: deref(requestID)})
	return faucetResult(sent, err)
}

func (r mutationResolver) FaucetBtc(ctx context.Context, address string, requestID *string) (*graph.FaucetResult, error) {
	if r.Faucet == nil {
		return nil, stxgraph.Errorf(stxgraph.EFORBIDDEN, "BTC faucet is not fully configured")
	}
	sent, err := r.Faucet.BTC(ctx, faucet.Request{Address: address, ID: deref(requestID)})
	return faucetResult(sent, err)
}

func faucetResult(sent faucet.Sent, err error) (*graph.FaucetResult, error) {
	var limit *faucet.LimitError
	if errors.As(err, &limit) {
		return nil, &gqlerror.Error{Message: limit.Error(), Err: stxgraph.Errorf(stxgraph.ERATELIMIT, "%s", limit.Error()), Extensions: map[string]any{
			"code": stxgraph.ERATELIMIT, RetryAfterExtension: limit.RetryAfterSeconds(),
		}}
	}
	if err != nil {
		return nil, err
	}
	return &graph.FaucetResult{Success: true, TxID: sent.TxID, TxRaw: sent.TxRaw}, nil
}
