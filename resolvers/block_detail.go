package resolvers

import (
	"context"
	"strconv"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// Block fields the reference's block JSON has beyond the block row, and the chain tip's
// mempool clock.

func (r *Resolver) ChainTip() graph.ChainTipResolver { return &chainTipResolver{r} }

type chainTipResolver struct{ *Resolver }

// MempoolUpdatedAt renders the mempool's last change as unix seconds, as the reference's
// mempool ETag does.
func (r *chainTipResolver) MempoolUpdatedAt(_ context.Context, t *db.ChainTip) (string, error) {
	return strconv.FormatFloat(float64(t.MempoolUpdatedAt.UnixMicro())/1e6, 'f', -1, 64), nil
}

func (r *queryResolver) BlockByBurnBlockHash(ctx context.Context, hash []byte) (*db.Block, error) {
	return r.Store.BlockByBurnBlockHash(ctx, hash)
}

func (r *blockResolver) TxIds(ctx context.Context, b *db.Block) ([][]byte, error) {
	ids, err := loaders.For(ctx).BlockTxIDs.Load(ctx, string(b.IndexBlockHash))()
	if ids == nil {
		return [][]byte{}, err
	}
	return ids.TxIDs, err
}

func (r *blockResolver) MicroblockTxCounts(ctx context.Context, b *db.Block) ([]*db.MicroblockTxCount, error) {
	ms, err := loaders.For(ctx).MicroblockTxCounts.Load(ctx, string(b.IndexBlockHash))()
	if ms == nil {
		ms = []*db.MicroblockTxCount{}
	}
	return ms, err
}

func (r *blockResolver) StreamedMicroblockHashes(ctx context.Context, b *db.Block) ([][]byte, error) {
	ms, err := loaders.For(ctx).StreamedMicroblocks.Load(ctx, string(b.IndexBlockHash))()
	hashes := make([][]byte, len(ms))
	for i, m := range ms {
		hashes[i] = m.Hash
	}
	return hashes, err
}
