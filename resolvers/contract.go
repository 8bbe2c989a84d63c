package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

type contractResolver struct{ *Resolver }

func (r *Resolver) Contract() graph.ContractResolver { return contractResolver{r} }

func (r queryResolver) Contract(ctx context.Context, id string) (*db.SmartContract, error) {
	return loaders.For(ctx).ContractByID.Load(ctx, id)()
}

// Transaction is the deploy transaction.
func (r contractResolver) Transaction(ctx context.Context, c *db.SmartContract) (*db.Tx, error) {
	key := db.TxKey{TxID: string(c.TxID), IndexBlockHash: string(c.IndexBlockHash), MicroblockHash: string(c.MicroblockHash)}
	return loaders.For(ctx).TxByKey.Load(ctx, key)()
}

func (r contractResolver) Block(ctx context.Context, c *db.SmartContract) (*db.Block, error) {
	return loaders.For(ctx).BlockByIndexHash.Load(ctx, string(c.IndexBlockHash))()
}

// Events are the contract's print events, newest first, paged by their chain position.
func (r contractResolver) Events(ctx context.Context, c *db.SmartContract, first *int32, after *string, last *int32, before *string) (*graph.ContractEventConnection, error) {
	ks, n, err := r.keyset(contractLogList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	rows, err := loaders.For(ctx).ContractLogs.Load(ctx, loaders.Page{Parent: c.ContractID, Keyset: ks})()
	if err != nil {
		return nil, err
	}
	p := paginate(ctx, contractLogList, rows, ks, n, contractLogCursor)
	return &graph.ContractEventConnection{Nodes: p.nodes, PageInfo: p.info, Edges: edges(p, func(c string, e *db.ContractLog) *graph.ContractEventEdge {
		return &graph.ContractEventEdge{Cursor: c, Node: e}
	})}, nil
}
