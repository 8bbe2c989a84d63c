package db

import (
	"context"
	"database/sql"
	"errors"
)

// ChainTip returns the canonical tip (a zero tip before the first block).
func (s *Store) ChainTip(ctx context.Context) (*ChainTip, error) {
	var tips []*ChainTip
	if err := s.scanPrepared(ctx, chainTipSQL, &tips); err != nil {
		return nil, err
	}
	if len(tips) == 0 {
		return nil, sql.ErrNoRows
	}
	return tips[0], nil
}

// Reads of the chain tip's one row go by its key (WHERE id): ingestion rewrites the row many
// times in one transaction, which can leave the table many pages long until a VACUUM FULL, and
// the key reaches the row without reading them.
//
// tipSQL reads the chain tip once for a statement (a WITH entry) that bounds reads with
// aboveTipSQL, which completes a condition on a row's block height to keep the unconfirmed
// microblocks streamed on the chain tip. When none are, as most of the time, its second part is
// false before any row is read (a one-time filter), so the prepared plan's choice of scan
// cannot make such a read cost the history of the table.
const (
	tipSQL      = `tip AS MATERIALIZED (SELECT block_height, microblock_sequence IS NOT NULL AS streaming FROM chain_tip WHERE id)`
	aboveTipSQL = `> (SELECT block_height FROM tip) AND (SELECT streaming FROM tip)`
)

// BlockByHeight returns the canonical block at height, or nil.
func (s *Store) BlockByHeight(ctx context.Context, height int32) (*Block, error) {
	return blockOf(s.BlockByHeightWith(ctx, height, BlockExtras{}))
}

// blockByHeightSQL is the canonical block at height $1; blockByHashSQL the block whose block hash
// or index block hash is $1, the canonical one first.
var (
	blockByHeightSQL = blockSelect + " WHERE block_height = $1 AND canonical LIMIT 1"
	blockByHashSQL   = blockSelect + ` WHERE block_hash = $1::bytea OR index_block_hash = $1::bytea
		ORDER BY canonical DESC, block_height DESC LIMIT 1`
)

// BlockByHash returns the block whose block hash or index block hash is hash, preferring the
// canonical and highest one, or nil.
func (s *Store) BlockByHash(ctx context.Context, hash []byte) (*Block, error) {
	return blockOf(s.BlockByHashWith(ctx, hash, BlockExtras{}))
}

// canonicalBlocksBelowSQL pages the canonical blocks newest first from the one offset ($2) places
// below the highest. Canonical blocks have consecutive heights (each one's parent is the
// canonical block one height below), so that block is the one at the highest height minus
// offset: the page starts there on the height index instead of walking the offset's entries,
// and costs the same at any depth of a growing chain.
const canonicalBlocksBelowSQL = ` WHERE canonical
	AND block_height <= (SELECT max(block_height) FROM blocks WHERE canonical) - $2::bigint
	ORDER BY block_height DESC LIMIT $1`

// BurnBlockByHash returns the burn block with that hash, or nil.
func (s *Store) BurnBlockByHash(ctx context.Context, hash []byte) (*BurnBlock, error) {
	var bs []*BurnBlock
	err := s.scanPrepared(ctx, burnBlockSelect+" WHERE burn_block_hash = $1", &bs, hash)
	return first(bs, err)
}

// BurnBlockByHeight returns the canonical burn block at height, or nil.
func (s *Store) BurnBlockByHeight(ctx context.Context, height int32) (*BurnBlock, error) {
	var bs []*BurnBlock
	err := s.scanPrepared(ctx, burnBlockSelect+" WHERE burn_block_height = $1 AND canonical LIMIT 1", &bs, height)
	return first(bs, err)
}

// orNil maps "no rows" to a nil result without error: absence is not a failure for lookups.
func orNil[T any](v *T, err error) (*T, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// BurnBlocksByHash returns the burn blocks with these hashes (keys are raw hash bytes as strings).
func (s *Store) BurnBlocksByHash(ctx context.Context, hashes []string) ([]*BurnBlock, error) {
	var bs []*BurnBlock
	err := s.scanPrepared(ctx, burnBlockSelect+" WHERE burn_block_hash = ANY($1::bytea[])", &bs, byteaArray(hashes))
	return bs, err
}
