package db

import (
	"context"
	"fmt"
	"strconv"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// BlockExtras are what a read of blocks reads beside each block's row, in the same statement:
// a block page, or a block looked up, is one statement with what its fields show.
type BlockExtras struct {
	// Contents are the block's contents (ContentsOfBlocks).
	Contents bool
	// BurnBlock is the burn block the block is anchored to.
	BurnBlock bool
}

// BlockRead is a block with the extras its read read.
type BlockRead struct {
	*Block
	// Contents, read with BlockExtras.Contents.
	Contents *BlockContents
	// BurnBlock, read with BlockExtras.BurnBlock: nil when that burn block is not stored.
	BurnBlock *BurnBlock
	// Extras are what the read read: which of the fields above it set.
	Extras BlockExtras
}

// blockReadSQL is the block statement q, which selects blockSelect's columns, with the extras x
// beside each row, in the order by: the contents gathered from their parts into four columns,
// the burn block's columns (anchor_…) from the one row its hash keys, if stored. Without extras
// it is q.
func blockReadSQL(q, order string, x BlockExtras) string {
	if x == (BlockExtras{}) {
		return q
	}
	cols, joins := "", ""
	if x.Contents {
		cols += `, c.contents_tx_ids, c.contents_accepted, c.contents_accepted_tx_counts, c.contents_streamed`
		joins += `
	CROSS JOIN LATERAL (SELECT (array_agg(p.bytes) FILTER (WHERE p.part = ` + strconv.Itoa(contentsTxIDs) + `))[1] AS contents_tx_ids,
		array_agg(p.bytes ORDER BY p.seq, p.bytes) FILTER (WHERE p.part = ` + strconv.Itoa(contentsAccepted) + `) AS contents_accepted,
		array_agg(p.tx_count ORDER BY p.seq, p.bytes) FILTER (WHERE p.part = ` + strconv.Itoa(contentsAccepted) + `) AS contents_accepted_tx_counts,
		array_agg(p.bytes ORDER BY p.seq, p.bytes) FILTER (WHERE p.part = ` + strconv.Itoa(contentsStreamed) + `) AS contents_streamed
		FROM (` + blockContentsParts("ARRAY[page.index_block_hash]") + `) p) c`
	}
	if x.BurnBlock {
		// A missing burn block leaves the columns null: the hash tells, and the others read as
		// their zero values.
		cols += `, bb.burn_block_hash AS anchor_burn_block_hash, coalesce(bb.burn_block_height, 0) AS anchor_burn_block_height,
		coalesce(bb.burn_amount, 0) AS anchor_burn_amount, bb.consensus_hash AS anchor_consensus_hash,
		bb.parent_burn_block_hash AS anchor_parent_burn_block_hash, coalesce(bb.canonical, false) AS anchor_canonical`
		joins += `
	LEFT JOIN burn_blocks bb ON bb.burn_block_hash = page.burn_block_hash`
	}
	return `SELECT page.*` + cols + `
	FROM (` + q + `) page` + joins + `
	ORDER BY ` + order
}

// blockReads are a block statement's variants, one per set of extras.
type blockReads map[BlockExtras]string

func newBlockReads(q, order string) blockReads {
	out := blockReads{}
	for _, contents := range []bool{false, true} {
		for _, burn := range []bool{false, true} {
			x := BlockExtras{Contents: contents, BurnBlock: burn}
			out[x] = blockReadSQL(q, order, x)
		}
	}
	return out
}

// The block reads that take their extras: a page (BlocksWith) and the lookups of one block.
var (
	blocksReads               = newBlockReads(blockSelect+canonicalBlocksBelowSQL, "page.block_height DESC")
	blockByHeightReads        = newBlockReads(blockByHeightSQL, "page.block_height")
	blockByHashReads          = newBlockReads(blockByHashSQL, "page.block_height")
	blockByBurnBlockHashReads = newBlockReads(blockByBurnBlockHashSQL, "page.block_height")
)

// blockByBurnBlockHashSQL is the highest canonical block anchored in burn block $1 (or, when none
// is canonical, the highest non-canonical one).
var blockByBurnBlockHashSQL = blockSelect + " WHERE burn_block_hash = $1 ORDER BY canonical DESC, block_height DESC LIMIT 1"

// BlocksWith returns canonical blocks newest first, offset places below the highest, with x.
func (s *Store) BlocksWith(ctx context.Context, limit, offset int, x BlockExtras) ([]*BlockRead, error) {
	return s.readBlocks(ctx, blocksReads[x], x, limit, offset)
}

// BlockByHeightWith is BlockByHeight with x, or nil.
func (s *Store) BlockByHeightWith(ctx context.Context, height int32, x BlockExtras) (*BlockRead, error) {
	return first(s.readBlocks(ctx, blockByHeightReads[x], x, height))
}

// BlockByHashWith is BlockByHash with x, or nil.
func (s *Store) BlockByHashWith(ctx context.Context, hash []byte, x BlockExtras) (*BlockRead, error) {
	return first(s.readBlocks(ctx, blockByHashReads[x], x, hash))
}

// BlockByBurnBlockHashWith returns the highest canonical block anchored in this burn block (or,
// when none is canonical, the highest non-canonical one) with x, or nil.
func (s *Store) BlockByBurnBlockHashWith(ctx context.Context, hash []byte, x BlockExtras) (*BlockRead, error) {
	return first(s.readBlocks(ctx, blockByBurnBlockHashReads[x], x, hash))
}

// BlocksPageWith returns a page of canonical blocks, newest first, with x.
func (s *Store) BlocksPageWith(ctx context.Context, k Keyset, x BlockExtras) ([]*BlockRead, error) {
	where, args, order := k.clause([]string{"block_height"}, 1, true)
	q := numbered(blockSelect + " WHERE canonical AND " + where + " ORDER BY " + order + " LIMIT ?")
	return s.readBlocks(ctx, blockReadSQL(q, order, x), x, append(args, k.Limit)...)
}

// blockOf is the block of a read without extras, or nil.
func blockOf(r *BlockRead, err error) (*Block, error) {
	if r == nil || err != nil {
		return nil, err
	}
	return r.Block, nil
}

// blockRow is a row of a blockReadSQL statement.
type blockRow struct {
	Block
	txIDs              []byte
	accepted, streamed [][]byte
	acceptedTxCounts   []int64
	burn               BurnBlock
}

// blockRowDests are the scan destinations of a blockReadSQL statement's columns.
var blockRowDests = func() map[string]func(*blockRow) any {
	dests := map[string]func(*blockRow) any{
		"contents_tx_ids":             func(b *blockRow) any { return &b.txIDs },
		"contents_accepted":           func(b *blockRow) any { return pgdialect.Array(&b.accepted) },
		"contents_accepted_tx_counts": func(b *blockRow) any { return pgdialect.Array(&b.acceptedTxCounts) },
		"contents_streamed":           func(b *blockRow) any { return pgdialect.Array(&b.streamed) },
	}
	for name, d := range blockColumnDests {
		dests[name] = func(b *blockRow) any { return d(&b.Block) }
	}
	for name, d := range burnBlockColumnDests {
		dests[anchorColumn(name)] = func(b *blockRow) any { return d(&b.burn) }
	}
	return dests
}()

// anchorColumn is the name a burn_blocks column takes beside a block's row.
func anchorColumn(name string) string { return "anchor_" + name }

// readBlocks runs q, a blockReadSQL statement of extras x, and returns its blocks with them.
func (s *Store) readBlocks(ctx context.Context, q string, x BlockExtras, args ...any) ([]*BlockRead, error) {
	rows, err := s.queryPrepared(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []*blockRow
	if err := scanModelRows(rows, &page, blockRowDests); err != nil || len(page) == 0 {
		return nil, err
	}
	out := make([]*BlockRead, len(page))
	for i, b := range page {
		r := &BlockRead{Block: &b.Block, Extras: x}
		if x.Contents {
			if r.Contents, err = b.contents(); err != nil {
				return nil, err
			}
		}
		if x.BurnBlock && b.burn.BurnBlockHash != nil {
			r.BurnBlock = &b.burn
		}
		out[i] = r
	}
	return out, nil
}

// contents are the block's contents as ContentsOfBlocks gives them.
func (b *blockRow) contents() (*BlockContents, error) {
	if len(b.accepted) != len(b.acceptedTxCounts) {
		return nil, fmt.Errorf("block contents: %d accepted microblocks with %d counts", len(b.accepted), len(b.acceptedTxCounts))
	}
	c := &BlockContents{IndexBlockHash: b.IndexBlockHash, TxIDs: splitTxIDs(b.txIDs),
		Accepted: make([]*MicroblockTxCount, len(b.accepted)), Streamed: b.streamed}
	for i, h := range b.accepted {
		c.Accepted[i] = &MicroblockTxCount{IndexBlockHash: b.IndexBlockHash, Hash: h, TxCount: int32(b.acceptedTxCounts[i])}
	}
	if c.Streamed == nil {
		c.Streamed = [][]byte{}
	}
	return c, nil
}
