package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
)

// Block fields the reference's block JSON has beyond the block row.

func (r queryResolver) BlockByBurnBlockHash(ctx context.Context, hash []byte) (*db.Block, error) {
	return oneBlock(ctx, hash, r.Store.BlockByBurnBlockHashWith)
}

// The ids, the accepted microblocks and the streamed ones are one read: the reference's block
// JSON lists all three.

func (r blockResolver) contents(ctx context.Context, b *db.Block) (*db.BlockContents, error) {
	return loaders.For(ctx).BlockContents.Load(ctx, string(b.IndexBlockHash))()
}

func (r blockResolver) TxIds(ctx context.Context, b *db.Block) ([][]byte, error) {
	c, err := r.contents(ctx, b)
	if err != nil {
		return nil, err
	}
	return c.TxIDs, nil
}

func (r blockResolver) MicroblockTxCounts(ctx context.Context, b *db.Block) ([]*db.MicroblockTxCount, error) {
	c, err := r.contents(ctx, b)
	if err != nil {
		return nil, err
	}
	return c.Accepted, nil
}

func (r blockResolver) StreamedMicroblockHashes(ctx context.Context, b *db.Block) ([][]byte, error) {
	c, err := r.contents(ctx, b)
	if err != nil {
		return nil, err
	}
	return c.Streamed, nil
}
