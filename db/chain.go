package db

import (
	"context"
	"database/sql"
	"errors"
)

// ChainTip returns the canonical tip (a zero tip before the first block).
func (s *Store) ChainTip(ctx context.Context) (*ChainTip, error) {
	tip := new(ChainTip)
	err := s.DB.NewSelect().Model(tip).Where("id").Scan(ctx)
	return tip, err
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
	b := new(Block)
	err := s.DB.NewSelect().Model(b).Where("block_height = ? AND canonical", height).Limit(1).Scan(ctx)
	return orNil(b, err)
}

// BlockByHash returns the block whose block hash or index block hash is hash, preferring the
// canonical and highest one, or nil.
func (s *Store) BlockByHash(ctx context.Context, hash []byte) (*Block, error) {
	b := new(Block)
	err := s.DB.NewSelect().Model(b).Where("block_hash = ? OR index_block_hash = ?", hash, hash).
		OrderExpr("canonical DESC, block_height DESC").Limit(1).Scan(ctx)
	return orNil(b, err)
}

// Blocks returns canonical blocks newest first.
func (s *Store) Blocks(ctx context.Context, limit, offset int) ([]*Block, error) {
	var bs []*Block
	err := s.DB.NewSelect().Model(&bs).Where("canonical").OrderExpr("block_height DESC").
		Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return bs, err
}

// BurnBlockByHash returns the burn block with that hash, or nil.
func (s *Store) BurnBlockByHash(ctx context.Context, hash []byte) (*BurnBlock, error) {
	b := new(BurnBlock)
	err := s.DB.NewSelect().Model(b).Where("burn_block_hash = ?", hash).Scan(ctx)
	return orNil(b, err)
}

// BurnBlockByHeight returns the canonical burn block at height, or nil.
func (s *Store) BurnBlockByHeight(ctx context.Context, height int32) (*BurnBlock, error) {
	b := new(BurnBlock)
	err := s.DB.NewSelect().Model(b).Where("burn_block_height = ? AND canonical", height).Limit(1).Scan(ctx)
	return orNil(b, err)
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
	err := s.DB.NewSelect().Model(&bs).Where("burn_block_hash = ANY(?)", byteKeys(hashes)).Scan(ctx)
	return bs, err
}
