package db

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph"
)

// Reads of canonical blocks by position, of block pages counted from a cursor block, and of burn
// blocks through the canonical Stacks blocks they anchor. Every read is bounded by a page, a
// tenure or a burn block: totals come from the chain tip or from one tenure's or one burn block's
// rows of an index.

// CanonicalTip returns the canonical block at the chain tip, or nil before the first block.
func (s *Store) CanonicalTip(ctx context.Context) (*Block, error) {
	var bs []*Block
	err := s.scanPrepared(ctx, blockSelect+" WHERE index_block_hash = (SELECT index_block_hash FROM chain_tip WHERE id) AND canonical", &bs)
	return first(bs, err)
}

// CanonicalBlockByHash returns the canonical block whose block hash or index block hash is hash,
// or nil. It reads the lookup that prefers the canonical block, which the hash indexes serve.
func (s *Store) CanonicalBlockByHash(ctx context.Context, hash []byte) (*Block, error) {
	b, err := s.BlockByHash(ctx, hash)
	if err != nil || b == nil || !b.Canonical {
		return nil, err
	}
	return b, nil
}

// MaxSignerSignaturesPage bounds a page of a block's signer signatures.
const MaxSignerSignaturesPage = 1000

// SignerSignaturePage returns limit of the block's signer signatures (500 when nil) after
// skipping offset (none when nil).
func (b *Block) SignerSignaturePage(limit, offset *int32) ([][]byte, error) {
	l, o := int32(500), int32(0)
	if limit != nil {
		l = *limit
	}
	if offset != nil {
		o = *offset
	}
	if l < 0 || l > MaxSignerSignaturesPage {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "limit must be between 0 and %d", MaxSignerSignaturesPage)
	}
	if o < 0 {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "offset must be >= 0")
	}
	sigs := b.SignerSignatures[min(int(o), len(b.SignerSignatures)):]
	return sigs[:min(int(l), len(sigs))], nil
}

// SignerSignatureCount is the number of signer signatures the block carries.
func (b *Block) SignerSignatureCount() int32 { return int32(len(b.SignerSignatures)) }

// BlockCursorPage is a page of canonical blocks counted from a cursor block.
type BlockCursorPage struct {
	Total      int32
	Cursor     []byte
	NextCursor []byte
	PrevCursor []byte
	Results    []*Block
}

// blockCursorRow is a block of the page with what the page says about its neighbours, repeated
// on every row so that one statement reads them all at one snapshot.
type blockCursorRow struct {
	Block      `bun:",extend"`
	PrevCursor []byte `bun:"prev_cursor"`
	NextCursor []byte `bun:"next_cursor"`
	Total      int32  `bun:"total"`
}

// tenureBlocksFromCursorSQL reads a page of the canonical blocks of one tenure ($4) from the
// cursor block ($1, the tip when null), moved $2 blocks down the list (up when negative), $3
// blocks long, with the index block hashes that start the older (prev) and newer (next) pages and
// the list's total: the tenure's blocks on any fork, counted on their index rows. Counting to the page
// walks no more than the tenure's blocks, those of one burn block.
const tenureBlocksFromCursorSQL = `WITH cur AS (
	SELECT block_height FROM blocks
	WHERE index_block_hash = COALESCE($1::bytea, (SELECT index_block_hash FROM chain_tip WHERE id)) AND canonical AND tenure_height = $4::int
), anchor AS (
	SELECT CASE WHEN $2::int >= 0 THEN (
		SELECT block_height FROM blocks WHERE canonical AND tenure_height = $4::int AND block_height <= (SELECT block_height FROM cur)
		ORDER BY block_height DESC OFFSET $2::int LIMIT 1)
	ELSE (
		SELECT block_height FROM blocks WHERE canonical AND tenure_height = $4::int AND block_height >= (SELECT block_height FROM cur)
		ORDER BY block_height ASC OFFSET -$2::int LIMIT 1)
	END AS block_height
), page AS (
	SELECT * FROM blocks WHERE canonical AND tenure_height = $4::int AND block_height <= (SELECT block_height FROM anchor)
	ORDER BY block_height DESC LIMIT $3::int
)
SELECT page.*,
	(SELECT index_block_hash FROM blocks WHERE canonical AND tenure_height = $4::int AND block_height < (SELECT max(block_height) FROM page)
		ORDER BY block_height DESC OFFSET $3::int - 1 LIMIT 1) AS prev_cursor,
	(SELECT index_block_hash FROM blocks WHERE canonical AND tenure_height = $4::int AND block_height > (SELECT max(block_height) FROM page)
		ORDER BY block_height ASC OFFSET $3::int - 1 LIMIT 1) AS next_cursor,
	(SELECT count(*) FROM blocks WHERE tenure_height = $4::int)::int AS total
FROM page ORDER BY block_height DESC`

// chainBlocksFromCursorSQL is tenureBlocksFromCursorSQL on the whole chain. Its canonical blocks
// have consecutive heights (canonicalBlocksBelowSQL), so the page's first block and those
// starting the pages either side are found at their heights instead of counted to, at any
// distance from the cursor; the total is the tip height, the count of canonical blocks.
const chainBlocksFromCursorSQL = `WITH cur AS (
	SELECT block_height FROM blocks
	WHERE index_block_hash = COALESCE($1::bytea, (SELECT index_block_hash FROM chain_tip WHERE id)) AND canonical
), anchor AS (
	SELECT block_height FROM blocks WHERE canonical AND block_height = (SELECT block_height FROM cur) - $2::bigint LIMIT 1
), page AS (
	SELECT * FROM blocks WHERE canonical AND block_height <= (SELECT block_height FROM anchor)
	ORDER BY block_height DESC LIMIT $3::int
)
SELECT page.*,
	(SELECT index_block_hash FROM blocks WHERE canonical AND block_height = (SELECT max(block_height) FROM page) - $3::int
		LIMIT 1) AS prev_cursor,
	(SELECT index_block_hash FROM blocks WHERE canonical AND block_height = (SELECT max(block_height) FROM page) + $3::int
		LIMIT 1) AS next_cursor,
	(SELECT block_height FROM chain_tip WHERE id) AS total
FROM page ORDER BY block_height DESC`

// BlocksFromCursor returns a page of limit canonical blocks, newest first, starting offset blocks
// below the cursor block (above it when offset is negative; the tip when cursor is nil), of the
// tenure when tenure is not nil. The page is empty when the cursor names no block of the list
// or the offset leads past its end.
func (s *Store) BlocksFromCursor(ctx context.Context, cursor []byte, offset, limit int, tenure *int32) (*BlockCursorPage, error) {
	var rows []*blockCursorRow
	var err error
	if tenure == nil {
		err = s.scanPrepared(ctx, chainBlocksFromCursorSQL, &rows, cursor, offset, limit)
	} else {
		err = s.scanPrepared(ctx, tenureBlocksFromCursorSQL, &rows, cursor, offset, limit, *tenure)
	}
	if err != nil || len(rows) == 0 {
		return &BlockCursorPage{}, err
	}
	p := &BlockCursorPage{Total: rows[0].Total, Cursor: rows[0].IndexBlockHash, PrevCursor: rows[0].PrevCursor, NextCursor: rows[0].NextCursor}
	for _, r := range rows {
		p.Results = append(p.Results, &r.Block)
	}
	return p, nil
}

// TxsOfBlockAt returns, for each of these index block hashes, the block's canonical transactions
// (anchored and confirmed-microblock ones) in chain order, limit of them after skipping offset.
func (s *Store) TxsOfBlockAt(ctx context.Context, hashes []string, limit, offset int) ([]*Tx, error) {
	var txs []*Tx
	err := pagePerKey{Select: "t.*", Keys: byteaArray(hashes), Type: "bytea", Key: "h",
		Inner: `SELECT * FROM txs WHERE index_block_hash = k.h AND canonical AND microblock_canonical
			ORDER BY microblock_sequence, tx_index OFFSET ?`,
		Args: []any{offset}, Limit: limit, As: "t"}.scan(ctx, s, &txs)
	return txs, err
}

// AnchoringBurnBlock is a burn block as the canonical Stacks blocks it anchors show it.
type AnchoringBurnBlock struct {
	BurnBlockHash     []byte   `bun:"burn_block_hash"`
	BurnBlockHeight   int32    `bun:"burn_block_height"`
	BurnBlockTime     int64    `bun:"burn_block_time"`
	StacksBlockHashes [][]byte `bun:"stacks_block_hashes,array"`
	// MeanBlockTime is the mean gap between consecutive Stacks blocks' times (null for one
	// block).
	MeanBlockTime *float64 `bun:"average_block_time"`
	TotalTxCount  int32    `bun:"total_tx_count"`
}

// TimeIso is the burn block's time as ISO 8601.
func (b *AnchoringBurnBlock) TimeIso() string { return isoTime(b.BurnBlockTime) }

// AverageBlockTime is the mean gap rounded to two decimals, 0 for a single block.
func (b *AnchoringBurnBlock) AverageBlockTime() float64 {
	if b.MeanBlockTime == nil {
		return 0
	}
	return RoundCents(*b.MeanBlockTime)
}

// RoundCents rounds x to two decimals the way JavaScript's toFixed(2) does (from the exact
// value of the double), as the chain's published averages are rounded.
func RoundCents(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 2, 64), 64)
	return r
}

// anchoringBurnBlocksSQL summarizes the canonical Stacks blocks of each burn height that {H}
// (a SELECT of burn_block_height values) lists, newest first: the hash and time of the burn block
// as its highest Stacks block records them, their hashes newest first, the mean gap between
// their times and their transaction count.
const anchoringBurnBlocksSQL = `WITH heights AS ({H})
SELECT h.burn_block_height, top.burn_block_hash, top.burn_block_time, agg.*
FROM heights h
CROSS JOIN LATERAL (
	SELECT burn_block_hash, burn_block_time FROM blocks
	WHERE canonical AND burn_block_height = h.burn_block_height ORDER BY block_height DESC LIMIT 1
) top
CROSS JOIN LATERAL (
	SELECT array_agg(block_hash ORDER BY block_height DESC) AS stacks_block_hashes,
		avg(block_time - prev_time)::float8 AS average_block_time,
		sum(tx_count)::int AS total_tx_count
	FROM (
		SELECT block_hash, block_height, block_time, tx_count,
			lag(block_time) OVER (ORDER BY block_height) AS prev_time
		FROM blocks WHERE canonical AND burn_block_height = h.burn_block_height
	) w
) agg
ORDER BY h.burn_block_height DESC`

var (
	anchoringBurnBlocksPageSQL = strings.Replace(anchoringBurnBlocksSQL, "{H}",
		"SELECT DISTINCT burn_block_height FROM blocks WHERE canonical ORDER BY burn_block_height DESC LIMIT $1 OFFSET $2", 1)
	anchoringBurnBlockOfTipSQL = strings.Replace(anchoringBurnBlocksSQL, "{H}",
		"SELECT burn_block_height FROM blocks WHERE index_block_hash = (SELECT index_block_hash FROM chain_tip WHERE id) AND canonical", 1)
	anchoringBurnBlockAtSQL = strings.Replace(anchoringBurnBlocksSQL, "{H}",
		"SELECT burn_block_height FROM blocks WHERE canonical AND burn_block_height = $1 LIMIT 1", 1)
	anchoringBurnBlockByHashSQL = strings.Replace(anchoringBurnBlocksSQL, "{H}",
		"SELECT burn_block_height FROM blocks WHERE burn_block_hash = $1 AND canonical LIMIT 1", 1)
)

// AnchoringBurnBlocks returns limit burn blocks that anchor canonical Stacks blocks, newest
// first, after skipping offset.
func (s *Store) AnchoringBurnBlocks(ctx context.Context, limit, offset int) ([]*AnchoringBurnBlock, error) {
	var bs []*AnchoringBurnBlock
	err := s.scanPrepared(ctx, anchoringBurnBlocksPageSQL, &bs, limit, offset)
	return bs, err
}

// AnchoringBurnBlockOfTip returns the burn block of the chain tip, or nil.
func (s *Store) AnchoringBurnBlockOfTip(ctx context.Context) (*AnchoringBurnBlock, error) {
	var bs []*AnchoringBurnBlock
	err := s.scanPrepared(ctx, anchoringBurnBlockOfTipSQL, &bs)
	return first(bs, err)
}

// AnchoringBurnBlockAt returns the burn block at height, or nil when it anchors no canonical
// Stacks block.
func (s *Store) AnchoringBurnBlockAt(ctx context.Context, height int32) (*AnchoringBurnBlock, error) {
	var bs []*AnchoringBurnBlock
	err := s.scanPrepared(ctx, anchoringBurnBlockAtSQL, &bs, height)
	return first(bs, err)
}

// AnchoringBurnBlockByHash returns the burn block with that hash, or nil when it anchors no
// canonical Stacks block.
func (s *Store) AnchoringBurnBlockByHash(ctx context.Context, hash []byte) (*AnchoringBurnBlock, error) {
	var bs []*AnchoringBurnBlock
	err := s.scanPrepared(ctx, anchoringBurnBlockByHashSQL, &bs, hash)
	return first(bs, err)
}

// AnchoredBlockPage is a page of the canonical Stacks blocks of one burn block.
type AnchoredBlockPage struct {
	Total   int32
	Results []*Block
}

// anchoredBlockRow is a block of the page with the burn block's count of canonical blocks; a
// row without a block says the burn block is known but the page is empty.
type anchoredBlockRow struct {
	Block `bun:",extend"`
	Total int32 `bun:"total"`
}

// anchoredBlocksSQL reads the burn block that {B} (a condition on blocks) names when a Stacks
// block on any fork is anchored in it, then a page of its canonical blocks, newest first, each
// with their count, at one snapshot. It returns no row for an unknown burn block.
const anchoredBlocksSQL = `WITH sel AS MATERIALIZED (
	SELECT burn_block_hash FROM blocks WHERE {B} ORDER BY canonical DESC LIMIT 1
), page AS (
	SELECT * FROM blocks WHERE canonical AND burn_block_hash = (SELECT burn_block_hash FROM sel)
	ORDER BY block_height DESC LIMIT ? OFFSET ?
)
SELECT page.*, (SELECT count(*) FROM blocks WHERE canonical AND burn_block_hash = sel.burn_block_hash)::int AS total
FROM sel LEFT JOIN page ON true ORDER BY page.block_height DESC`

// The burn block conditions of anchoredBlocksSQL: the tip's, by height, by hash.
const (
	burnOfTipCondition  = "burn_block_hash = (SELECT b.burn_block_hash FROM blocks b WHERE b.index_block_hash = (SELECT index_block_hash FROM chain_tip WHERE id))"
	burnAtCondition     = "burn_block_height = ?::int"
	burnByHashCondition = "burn_block_hash = ?::bytea"
)

// AnchoredBlocks returns a page of the canonical Stacks blocks anchored in the burn block of the
// tip (latest), at height, or with hash, newest first; nil when no Stacks block on any fork is
// anchored in it.
func (s *Store) AnchoredBlocks(ctx context.Context, latest bool, height *int32, hash []byte, limit, offset int) (*AnchoredBlockPage, error) {
	cond, args := burnByHashCondition, []any{hash}
	switch {
	case latest:
		cond, args = burnOfTipCondition, nil
	case height != nil:
		cond, args = burnAtCondition, []any{*height}
	}
	var rows []*anchoredBlockRow
	q := numbered(strings.Replace(anchoredBlocksSQL, "{B}", cond, 1))
	if err := s.scanPrepared(ctx, q, &rows, append(args, limit, offset)...); err != nil || len(rows) == 0 {
		return nil, err
	}
	p := &AnchoredBlockPage{Total: rows[0].Total}
	for _, r := range rows {
		if r.IndexBlockHash != nil {
			p.Results = append(p.Results, &r.Block)
		}
	}
	if len(p.Results) == 0 { // the count of an empty page, as listings report it
		p.Total = 0
	}
	return p, nil
}

// averageBlockTimesSQL averages the gaps between consecutive canonical blocks' times (a block
// without its own time counts with its burn block's) over the last hour, day, week and 30 days
// before $1, reading only the blocks of those 30 days (and the one before them).
const averageBlockTimesSQL = `WITH recent AS (
	SELECT block_height, CASE WHEN block_time = 0 THEN burn_block_time ELSE block_time END AS t
	FROM blocks WHERE canonical AND block_time >= $1::bigint - 30 * 86400
), gaps AS (
	SELECT t, t - lag(t) OVER (ORDER BY block_height) AS gap FROM recent
)
SELECT
	COALESCE(avg(gap) FILTER (WHERE t >= $1::bigint - 3600), 0)::float8 AS last_1h,
	COALESCE(avg(gap) FILTER (WHERE t >= $1::bigint - 86400), 0)::float8 AS last_24h,
	COALESCE(avg(gap) FILTER (WHERE t >= $1::bigint - 7 * 86400), 0)::float8 AS last_7d,
	COALESCE(avg(gap), 0)::float8 AS last_30d
FROM gaps WHERE gap IS NOT NULL`

// AverageBlockTimes are mean gaps between consecutive canonical blocks, in seconds.
type AverageBlockTimes struct {
	Last1h  float64 `bun:"last_1h"`
	Last24h float64 `bun:"last_24h"`
	Last7d  float64 `bun:"last_7d"`
	Last30d float64 `bun:"last_30d"`
}

// AverageBlockTimesAt returns the mean gaps between consecutive canonical blocks' times over the
// windows before now.
func (s *Store) AverageBlockTimesAt(ctx context.Context, now time.Time) (*AverageBlockTimes, error) {
	var ts []*AverageBlockTimes
	err := s.scanPrepared(ctx, averageBlockTimesSQL, &ts, now.Unix())
	if err != nil || len(ts) == 0 {
		return &AverageBlockTimes{}, err
	}
	return ts[0], nil
}
