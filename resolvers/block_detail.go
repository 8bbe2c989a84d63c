package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
)

// Block fields the reference's block JSON has beyond the block row.

func (r queryResolver) BlockByBurnBlockHash(ctx context.Context, hash []byte) (*db.Block, error) {
	return r.Store.BlockByBurnBlockHash(ctx, hash)
}

func (r blockResolver) TxIds(ctx context.Context, b *db.Block) ([][]byte, error) {
	ids, err := loaders.For(ctx).BlockTxIDs.Load(ctx, string(b.IndexBlockHash))()
	if ids == nil {
		return [][]byte{}, err
	}
	return ids.TxIDs, err
}

func (r blockResolver) MicroblockTxCounts(ctx context.Context, b *db.Block) ([]*db.MicroblockTxCount, error) {
	ms, err := loaders.For(ctx).MicroblockTxCounts.Load(ctx, string(b.IndexBlockHash))()
	if ms == nil {
		ms = []*db.MicroblockTxCount{}
	}
	return ms, err
}

func (r blockResolver) StreamedMicroblockHashes(ctx context.Context, b *db.Block) ([][]byte, error) {
	ms, err := loaders.For(ctx).StreamedMicroblocks.Load(ctx, string(b.IndexBlockHash))()
	hashes := make([][]byte, len(ms))
	for i, m := range ms {
		hashes[i] = m.Hash
	}
	return hashes, err
}
