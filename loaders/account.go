package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// mempoolStxDelta loads each principal's pending mempool STX movements once per request, however
// many balance fields ask for them.
func mempoolStxDelta(store *db.Store) dataloader.BatchFunc[string, *db.MempoolStxDelta] {
	return func(ctx context.Context, principals []string) []*dataloader.Result[*db.MempoolStxDelta] {
		out := make([]*dataloader.Result[*db.MempoolStxDelta], len(principals))
		for i, p := range principals {
			d, err := store.MempoolStxDelta(ctx, p)
			out[i] = &dataloader.Result[*db.MempoolStxDelta]{Data: d, Error: err}
		}
		return out
	}
}
