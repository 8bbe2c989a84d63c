package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

type blockResolver struct{ *Resolver }

func (r queryResolver) ChainTip(ctx context.Context) (*db.ChainTip, error) {
	return r.chainTip(ctx)
}

func (r queryResolver) Block(ctx context.Context, height *int32, hash []byte) (*db.Block, error) {
	switch {
	case height != nil && hash != nil:
		return nil, invalid("give either height or hash, not both")
	case height != nil:
		return oneBlock(ctx, *height, r.Store.BlockByHeight, r.Store.BlockByHeightWithContents)
	case hash != nil:
		return oneBlock(ctx, hash, r.Store.BlockByHash, r.Store.BlockByHashWithContents)
	default:
		return nil, invalid("give a height or a hash")
	}
}

// contentsFields are the fields of a block that list its contents (blockResolver.contents).
var contentsFields = []string{"txIds", "microblockTxCounts", "streamedMicroblockHashes"}

// oneBlock looks a block up by key: alone, or with its contents when a field of theirs is asked
// for, in one statement whose contents the block's fields then find read.
func oneBlock[K any](ctx context.Context, key K, alone func(context.Context, K) (*db.Block, error),
	withContents func(context.Context, K) (*db.Block, *db.BlockContents, error)) (*db.Block, error) {
	if !selects(ctx, contentsFields...) {
		return alone(ctx, key)
	}
	b, c, err := withContents(ctx, key)
	if err != nil || b == nil {
		return nil, err
	}
	loaders.PrimeBlockContents(ctx, []*db.BlockContents{c})
	return b, nil
}

// Blocks reads a page of blocks, with their contents when a field of theirs is asked for (the
// REST block list asks for all three): the page is then one statement, and the blocks' fields
// find their contents read.
func (r queryResolver) Blocks(ctx context.Context, limit, offset *int32) ([]*db.Block, error) {
	l, o, err := page(limit, offset, MaxBlocksPage)
	if err != nil {
		return nil, err
	}
	if !selects(ctx, contentsFields...) {
		return r.Store.Blocks(ctx, l, o)
	}
	blocks, contents, err := r.Store.BlocksWithContents(ctx, l, o)
	if err != nil {
		return nil, err
	}
	loaders.PrimeBlockContents(ctx, contents)
	return blocks, nil
}

func (r queryResolver) BurnBlock(ctx context.Context, hash []byte, height *int32) (*db.BurnBlock, error) {
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

func (r queryResolver) BlocksConnection(ctx context.Context, first *int32, after *string, last *int32, before *string) (*graph.BlockConnection, error) {
	ks, n, err := r.keyset(blockList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	rows, err := r.Store.BlocksPage(ctx, ks)
	if err != nil {
		return nil, err
	}
	p := paginate(ctx, blockList, rows, ks, n, blockCursor)
	return &graph.BlockConnection{Nodes: p.nodes, PageInfo: p.info, Edges: edges(p, func(c string, b *db.Block) *graph.BlockEdge {
		return &graph.BlockEdge{Cursor: c, Node: b}
	})}, nil
}

type blockConnectionResolver struct{ *Resolver }

// TotalCount is the tip height: canonical blocks are numbered without gaps from 1, so the count
// costs one single-row read instead of a scan.
func (r blockConnectionResolver) TotalCount(ctx context.Context, _ *graph.BlockConnection) (int32, error) {
	tip, err := r.chainTip(ctx)
	if err != nil {
		return 0, err
	}
	return tip.BlockHeight, nil
}

func (r blockResolver) BurnBlock(ctx context.Context, b *db.Block) (*db.BurnBlock, error) {
	return loaders.For(ctx).BurnBlockByHash.Load(ctx, string(b.BurnBlockHash))()
}

func (r blockResolver) Parent(ctx context.Context, b *db.Block) (*db.Block, error) {
	return loaders.For(ctx).BlockByIndexHash.Load(ctx, string(b.ParentIndexBlockHash))()
}

func (r blockResolver) Transactions(ctx context.Context, b *db.Block, first *int32, after *string, last *int32, before *string) (*graph.TransactionConnection, error) {
	ks, n, err := r.keyset(blockTxList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	page := loaders.Page{Parent: string(b.IndexBlockHash), Keyset: ks, Columns: txPageColumns(ctx), Events: txEventsAsked(ctx, pageTxs)}
	rows, err := loaders.For(ctx).BlockTxs.Load(ctx, page)()
	if err != nil {
		return nil, err
	}
	c := txConnection(paginate(ctx, blockTxList, rows, ks, n, blockTxCursor))
	c.TotalCount = b.TxCount
	return c, nil
}

func (r blockResolver) Microblocks(ctx context.Context, b *db.Block) ([]*db.Microblock, error) {
	return loaders.For(ctx).MicroblocksAccepted.Load(ctx, string(b.IndexBlockHash))()
}

func (r blockResolver) MicroblocksStreamed(ctx context.Context, b *db.Block) ([]*db.Microblock, error) {
	return loaders.For(ctx).MicroblocksStreamed.Load(ctx, string(b.IndexBlockHash))()
}

func (r blockResolver) MinerRewards(ctx context.Context, b *db.Block) ([]*db.MinerReward, error) {
	return loaders.For(ctx).MinerRewards.Load(ctx, string(b.IndexBlockHash))()
}

// txConnection builds a transaction connection from a page.
func txConnection(p pageOf[*db.Tx]) *graph.TransactionConnection {
	return &graph.TransactionConnection{Nodes: p.nodes, PageInfo: p.info, Edges: edges(p, func(c string, t *db.Tx) *graph.TransactionEdge {
		return &graph.TransactionEdge{Cursor: c, Node: t}
	})}
}

// page validates limit/offset arguments against a maximum page size.
func page(limit, offset *int32, maxLimit int32) (int, int, error) {
	l, o := int32(DefaultPageSize), int32(0)
	if limit != nil {
		l = *limit
	}
	if offset != nil {
		o = *offset
	}
	if l < 0 || l > maxLimit {
		return 0, 0, invalid("limit must be between 0 and %d", maxLimit)
	}
	if o < 0 {
		return 0, 0, invalid("offset must be >= 0")
	}
	return int(l), int(o), nil
}

func (r *Resolver) BlockConnection() graph.BlockConnectionResolver {
	return blockConnectionResolver{r}
}

// Block is the anchor block that holds the transaction (for a microblock transaction, the block
// that confirmed its microblock).
func (r transactionResolver) Block(ctx context.Context, t *db.Tx) (*db.Block, error) {
	return loaders.For(ctx).BlockByIndexHash.Load(ctx, string(t.IndexBlockHash))()
}
