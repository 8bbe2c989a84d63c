package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

type microblockResolver struct{ *Resolver }

func (r queryResolver) Microblock(ctx context.Context, hash []byte) (*db.Microblock, error) {
	return loaders.For(ctx).MicroblockByHash.Load(ctx, string(hash))()
}

// Block is the anchor block that confirmed (or orphaned) the microblock; nil while unconfirmed.
func (r microblockResolver) Block(ctx context.Context, m *db.Microblock) (*db.Block, error) {
	if len(m.IndexBlockHash) == 0 {
		return nil, nil
	}
	return loaders.For(ctx).BlockByIndexHash.Load(ctx, string(m.IndexBlockHash))()
}

func (r microblockResolver) ParentBlock(ctx context.Context, m *db.Microblock) (*db.Block, error) {
	return loaders.For(ctx).BlockByIndexHash.Load(ctx, string(m.ParentIndexBlockHash))()
}

func (r microblockResolver) Transactions(ctx context.Context, m *db.Microblock) ([]*db.Tx, error) {
	key := db.MicroblockKey{MicroblockHash: string(m.MicroblockHash), IndexBlockHash: string(m.IndexBlockHash)}
	return loaders.For(ctx).MicroblockTxs.Load(ctx, key)()
}

func (r *Resolver) Microblock() graph.MicroblockResolver { return microblockResolver{r} }

// Microblock is the microblock that carried the transaction; nil for anchored transactions.
func (r transactionResolver) Microblock(ctx context.Context, t *db.Tx) (*db.Microblock, error) {
	if len(t.MicroblockHash) == 0 {
		return nil, nil
	}
	return loaders.For(ctx).MicroblockByHash.Load(ctx, string(t.MicroblockHash))()
}
