package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
)

type blockResolver struct{ *Resolver }

func (r *queryResolver) ChainTip(ctx context.Context) (*db.ChainTip, error) {
	return r.Store.ChainTip(ctx)
}

func (r *queryResolver) Block(ctx context.Context, height *int32, hash []byte) (*db.Block, error) {
	switch {
	case height != nil && hash != nil:
		return nil, invalid("give either height or hash, not both")
	case height != nil:
		return r.Store.BlockByHeight(ctx, *height)
	case hash != nil:
		return r.Store.BlockByHash(ctx, hash)
	default:
		return nil, invalid("give a height or a hash")
	}
}

func (r *queryResolver) Blocks(ctx context.Context, limit, offset *int32) ([]*db.Block, error) {
	l, o, err := page(limit, offset, 30)
	if err != nil {
		return nil, err
	}
	return r.Store.Blocks(ctx, l, o)
}

func (r *queryResolver) BurnBlock(ctx context.Context, hash []byte, height *int32) (*db.BurnBlock, error) {
	switch {
	case height != nil && hash != nil:
		return nil, invalid("give either height or hash, not both")
	case height != nil:
		return r.Store.BurnBlockByHeight(ctx, *height)
	case hash != nil:
		return r.Store.BurnBlockByHash(ctx, hash)
	default:
		return nil, invalid("give a height or a hash")
	}
}

func (r *blockResolver) BurnBlock(ctx context.Context, b *db.Block) (*db.BurnBlock, error) {
	return loaders.For(ctx).BurnBlockByHash.Load(ctx, string(b.BurnBlockHash))()
}

// page validates limit/offset arguments against a maximum page size.
func page(limit, offset *int32, max int32) (int, int, error) {
	l, o := int32(20), int32(0)
	if limit != nil {
		l = *limit
	}
	if offset != nil {
		o = *offset
	}
	if l < 0 || l > max {
		return 0, 0, invalid("limit must be between 0 and %d", max)
	}
	if o < 0 {
		return 0, 0, invalid("offset must be >= 0")
	}
	return int(l), int(o), nil
}
