package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

func (r queryResolver) Mempool(ctx context.Context, address *string, first *int32, after *string, last *int32, before *string) (*graph.MempoolTransactionConnection, error) {
	ks, n, err := r.keyset(mempoolList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	var addr string
	if address != nil {
		if _, err := c32.ParsePrincipal(*address); err != nil {
			return nil, invalid("invalid STX address %q", *address)
		}
		addr = *address
	}
	rows, err := r.Store.MempoolPage(ctx, addr, ks)
	if err != nil {
		return nil, err
	}
	p := paginate(ctx, mempoolList, rows, ks, n, mempoolCursor)
	return &graph.MempoolTransactionConnection{Nodes: p.nodes, PageInfo: p.info, Address: addr, Edges: edges(p, func(c string, t *db.MempoolTx) *graph.MempoolTransactionEdge {
		return &graph.MempoolTransactionEdge{Cursor: c, Node: t}
	})}, nil
}

func (r queryResolver) MempoolTransaction(ctx context.Context, txID []byte) (*db.MempoolTx, error) {
	return loaders.For(ctx).MempoolTxByID.Load(ctx, string(txID))()
}

func (r queryResolver) MempoolTransactionsByIds(ctx context.Context, ids [][]byte) ([]*db.MempoolTx, error) {
	txs, errs := loaders.For(ctx).MempoolTxByID.LoadMany(ctx, uniqueKeys(ids))()
	out := make([]*db.MempoolTx, 0, len(txs))
	for i, t := range txs {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		if t != nil {
			out = append(out, t)
		}
	}
	return out, nil
}

func (r *Resolver) MempoolTransactionConnection() graph.MempoolTransactionConnectionResolver {
	return mempoolConnectionResolver{r}
}

type mempoolConnectionResolver struct{ *Resolver }

// TotalCount counts pending transactions (all of them: the address filter has no cheap count).
func (r mempoolConnectionResolver) TotalCount(ctx context.Context, c *graph.MempoolTransactionConnection) (*int32, error) {
	if c.Address != "" {
		return nil, nil
	}
	n, err := r.Store.MempoolCount(ctx)
	count := int32(n)
	return &count, err
}
