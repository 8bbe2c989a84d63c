package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

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
		return oneBlock(ctx, *height, r.Store.BlockByHeightWith)
	case hash != nil:
		return oneBlock(ctx, hash, r.Store.BlockByHashWith)
	default:
		return nil, invalid("give a height or a hash")
	}
}

// contentsFields are the fields of a block that list its contents (blockResolver.contents).
var contentsFields = []string{"txIds", "microblockTxCounts", "streamedMicroblockHashes"}

// Where the blocks a field reads stand in its selection: the field's own (a lookup, a list), a
// page's nodes and its edges' node.
var (
	blockSelf  = [][]string{{}}
	pageBlocks = [][]string{{"nodes"}, {"edges", "node"}}
)

// blockExtras are what the blocks the field ctx resolves read beside their rows: their contents
// when a field of theirs is asked for (the REST block JSON asks for all three), their burn block
// when it is. The read is then one statement, and those fields find what it read.
func blockExtras(ctx context.Context, paths [][]string) db.BlockExtras {
	if graphql.GetFieldContext(ctx) == nil {
		return db.BlockExtras{}
	}
	asked := func(names ...string) bool {
		return !everyFieldAsked(ctx, paths, func(f *ast.Field) bool { return !slices.Contains(names, f.Name) })
	}
	return db.BlockExtras{Contents: asked(contentsFields...), BurnBlock: asked("burnBlock")}
}

// oneBlock looks a block up by key with the extras its fields ask for.
func oneBlock[K any](ctx context.Context, key K, read func(context.Context, K, db.BlockExtras) (*db.BlockRead, error)) (*db.Block, error) {
	b, err := read(ctx, key, blockExtras(ctx, blockSelf))
	if err != nil || b == nil {
		return nil, err
	}
	loaders.PrimeBlockReads(ctx, []*db.BlockRead{b})
	return b.Block, nil
}

// blocksOf are the blocks of reads, whose extras it primes for the rest of the request.
func blocksOf(ctx context.Context, reads []*db.BlockRead) []*db.Block {
	loaders.PrimeBlockReads(ctx, reads)
	blocks := make([]*db.Block, len(reads))
	for i, r := range reads {
		blocks[i] = r.Block
	}
	return blocks
}

// Blocks reads a page of blocks with the extras their fields ask for.
func (r queryResolver) Blocks(ctx context.Context, limit, offset *int32) ([]*db.Block, error) {
	l, o, err := page(limit, offset, MaxBlocksPage)
	if err != nil {
		return nil, err
	}
	reads, err := r.Store.BlocksWith(ctx, l, o, blockExtras(ctx, blockSelf))
	if err != nil {
		return nil, err
	}
	return blocksOf(ctx, reads), nil
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
	reads, err := r.Store.BlocksPageWith(ctx, ks, blockExtras(ctx, pageBlocks))
	if err != nil {
		return nil, err
	}
	p := paginate(ctx, blockList, blocksOf(ctx, reads), ks, n, blockCursor)
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
