package resolvers

import (
	"context"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// Page bounds of the block reads by position.
const (
	// maxCursorOffset bounds how far blocksFromCursor moves from its cursor block: ten pages.
	maxCursorOffset = 10 * MaxBlocksPage
	// maxBlockTxsPage bounds Block.transactionPage(limit:).
	maxBlockTxsPage = 50
)

// blockPosition checks that exactly one of latest (when true), height and hash is given.
func blockPosition(latest *bool, height *int32, hash []byte) (bool, error) {
	isLatest := latest != nil && *latest
	n := 0
	for _, given := range []bool{isLatest, height != nil, hash != nil} {
		if given {
			n++
		}
	}
	if n != 1 {
		return false, invalid("give exactly one of latest, height and hash")
	}
	return isLatest, nil
}

func (r queryResolver) CanonicalBlock(ctx context.Context, latest *bool, height *int32, hash []byte) (*db.Block, error) {
	isLatest, err := blockPosition(latest, height, hash)
	switch {
	case err != nil:
		return nil, err
	case isLatest:
		return r.Store.CanonicalTip(ctx)
	case height != nil:
		return r.Store.BlockByHeight(ctx, *height)
	default:
		return r.Store.CanonicalBlockByHash(ctx, hash)
	}
}

func (r queryResolver) BlocksFromCursor(ctx context.Context, cursor []byte, offset, limit, tenureHeight *int32) (*db.BlockCursorPage, error) {
	if *limit < 1 || *limit > MaxBlocksPage {
		return nil, invalid("limit must be between 1 and %d", MaxBlocksPage)
	}
	if *offset < -maxCursorOffset || *offset > maxCursorOffset {
		return nil, invalid("offset must be between %d and %d", -maxCursorOffset, maxCursorOffset)
	}
	if tenureHeight != nil && *tenureHeight < 0 {
		return nil, invalid("tenureHeight must be >= 0")
	}
	return r.Store.BlocksFromCursor(ctx, cursor, int(*offset), int(*limit), tenureHeight)
}

func (r queryResolver) AnchoringBurnBlocks(ctx context.Context, limit, offset *int32) (*graph.AnchoringBurnBlockPage, error) {
	l, o, err := page(limit, offset, MaxBlocksPage)
	if err != nil {
		return nil, err
	}
	bs, err := r.Store.AnchoringBurnBlocks(ctx, l, o)
	if err != nil || len(bs) == 0 {
		return &graph.AnchoringBurnBlockPage{Results: []*db.AnchoringBurnBlock{}}, err
	}
	// The listing counts canonical Stacks blocks, the tip's height.
	tip, err := r.chainTip(ctx)
	if err != nil {
		return nil, err
	}
	return &graph.AnchoringBurnBlockPage{Total: tip.BlockHeight, Results: bs}, nil
}

func (r queryResolver) AnchoringBurnBlock(ctx context.Context, latest *bool, height *int32, hash []byte) (*db.AnchoringBurnBlock, error) {
	isLatest, err := blockPosition(latest, height, hash)
	switch {
	case err != nil:
		return nil, err
	case isLatest:
		return r.Store.AnchoringBurnBlockOfTip(ctx)
	case height != nil:
		return r.Store.AnchoringBurnBlockAt(ctx, *height)
	default:
		return r.Store.AnchoringBurnBlockByHash(ctx, hash)
	}
}

func (r queryResolver) BlocksOfBurnBlock(ctx context.Context, latest *bool, height *int32, hash []byte, limit, offset *int32) (*db.AnchoredBlockPage, error) {
	isLatest, err := blockPosition(latest, height, hash)
	if err != nil {
		return nil, err
	}
	l, o, err := page(limit, offset, MaxBlocksPage)
	if err != nil {
		return nil, err
	}
	return r.Store.AnchoredBlocks(ctx, isLatest, height, hash, l, o)
}

func (r queryResolver) AverageBlockTimes(ctx context.Context) (*db.AverageBlockTimes, error) {
	t, err := r.Store.AverageBlockTimesAt(ctx, time.Now())
	if err != nil {
		return nil, err
	}
	return &db.AverageBlockTimes{Last1h: db.RoundCents(t.Last1h), Last24h: db.RoundCents(t.Last24h),
		Last7d: db.RoundCents(t.Last7d), Last30d: db.RoundCents(t.Last30d)}, nil
}

func (r blockResolver) TransactionPage(ctx context.Context, b *db.Block, limit, offset *int32) ([]*db.Tx, error) {
	l, o, err := page(limit, offset, maxBlockTxsPage)
	if err != nil {
		return nil, err
	}
	return loaders.For(ctx).BlockTxsAt.Load(ctx, loaders.OffsetPage{Parent: string(b.IndexBlockHash), Limit: l, Offset: o})()
}
