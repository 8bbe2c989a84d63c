package db

import (
	"context"
)

// AnyTransaction is a mined (*Tx) or mempool (*MempoolTx) transaction.
type AnyTransaction interface {
	// Fields returns the columns derived from the transaction's bytes.
	Fields() *TxFields
}

func (t *Tx) Fields() *TxFields        { return &t.TxFields }
func (t *MempoolTx) Fields() *TxFields { return &t.TxFields }

// CanonicalTxsByID returns the canonical, microblock-canonical rows of these transactions; the
// unconfirmed microblock rows above the tip only with unanchored.
func (s *Store) CanonicalTxsByID(ctx context.Context, ids []string, unanchored bool) ([]*Tx, error) {
	var txs []*Tx
	q := s.DB.NewSelect().Model(&txs).Where("tx_id = ANY(?) AND canonical AND microblock_canonical", byteKeys(ids))
	if !unanchored {
		q = q.Where("block_height <= (SELECT block_height FROM chain_tip)")
	}
	return txs, q.Scan(ctx)
}

// PrincipalTxQuery selects the part of a principal's history a page is read from.
type PrincipalTxQuery struct {
	// AtHeight keeps the transactions of one block height, unpaged.
	AtHeight int32
	// UpTo keeps the transactions up to a height (0: the tip, or tip+1 with Unanchored).
	UpTo       int32
	Unanchored bool
	Limit      int
	Offset     int
}

// PrincipalTxPage returns one page of the canonical transactions a principal took part in,
// newest first, and how many there are. At the tip the count is the principal's running tx count
// (plus its unconfirmed microblock transactions), so neither figure grows with the history.
func (s *Store) PrincipalTxPage(ctx context.Context, principal string, q PrincipalTxQuery) (int64, []*Tx, error) {
	bound, args := "block_height <= (SELECT block_height FROM chain_tip)", []any{principal}
	switch {
	case q.AtHeight > 0:
		bound, args = "block_height = ?", append(args, q.AtHeight)
	case q.UpTo > 0:
		bound, args = "block_height <= ?", append(args, q.UpTo)
	case q.Unanchored:
		bound = "TRUE"
	}
	var total int64
	var err error
	if q.AtHeight > 0 || q.UpTo > 0 {
		err = s.DB.NewRaw(`SELECT count(*) FROM principal_txs WHERE principal = ? AND canonical AND microblock_canonical AND `+bound, args...).
			Scan(ctx, &total)
	} else {
		err = s.DB.NewRaw(`SELECT coalesce((SELECT tx_count FROM principal_stx_totals WHERE principal = ?0), 0)
			+ CASE WHEN ?1 THEN (SELECT count(*) FROM principal_txs WHERE principal = ?0 AND canonical AND microblock_canonical
				AND block_height > (SELECT block_height FROM chain_tip)) ELSE 0 END`,
			principal, q.Unanchored).Scan(ctx, &total)
	}
	if err != nil {
		return 0, nil, err
	}
	page := " LIMIT ? OFFSET ?"
	if q.AtHeight > 0 {
		page = ""
	} else {
		args = append(args, q.Limit, q.Offset)
	}
	var txs []*Tx
	err = s.DB.NewRaw(`SELECT t.* FROM (SELECT tx_id, index_block_hash, microblock_hash FROM principal_txs
		WHERE principal = ? AND canonical AND microblock_canonical AND `+bound+`
		ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC`+page+`) p
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
		ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC`, args...).Scan(ctx, &txs)
	if isNoRows(err) {
		err = nil
	}
	return total, txs, err
}

// BlockTxID is one transaction id of a block.
type BlockTxID struct {
	IndexBlockHash []byte `bun:"index_block_hash"`
	TxID           []byte `bun:"tx_id"`
}

// TxIDsOfBlocks returns the ids of the canonical transactions of these blocks, newest first
// within each block (microblock sequence, then tx index, descending), as the reference lists them.
func (s *Store) TxIDsOfBlocks(ctx context.Context, hashes []string) ([]*BlockTxID, error) {
	var ids []*BlockTxID
	err := s.DB.NewRaw(`SELECT index_block_hash, tx_id FROM txs WHERE index_block_hash = ANY(?) AND canonical AND microblock_canonical
		ORDER BY index_block_hash, microblock_sequence DESC, tx_index DESC`, byteKeys(hashes)).Scan(ctx, &ids)
	if isNoRows(err) {
		err = nil
	}
	return ids, err
}

// MicroblockTxCount is a microblock a block confirmed, with its canonical transaction count.
type MicroblockTxCount struct {
	IndexBlockHash []byte `bun:"index_block_hash"`
	Hash           []byte `bun:"microblock_hash"`
	TxCount        int32  `bun:"tx_count"`
}

// MicroblockTxCountsOfBlocks returns, for these blocks, the microblocks each confirmed, in
// sequence order, with their canonical transaction counts.
func (s *Store) MicroblockTxCountsOfBlocks(ctx context.Context, hashes []string) ([]*MicroblockTxCount, error) {
	var rows []*MicroblockTxCount
	err := s.DB.NewRaw(`SELECT m.index_block_hash, m.microblock_hash,
		(SELECT count(*) FROM txs t WHERE t.microblock_hash = m.microblock_hash AND t.index_block_hash = m.index_block_hash
			AND t.canonical AND t.microblock_canonical) AS tx_count
		FROM microblocks m WHERE m.index_block_hash = ANY(?) AND m.microblock_canonical
		ORDER BY m.index_block_hash, m.microblock_sequence`, byteKeys(hashes)).Scan(ctx, &rows)
	if isNoRows(err) {
		err = nil
	}
	return rows, err
}

// BlockByBurnBlockHash returns the highest canonical block anchored in this burn block (or, when
// none is canonical, the highest non-canonical one), or nil.
func (s *Store) BlockByBurnBlockHash(ctx context.Context, hash []byte) (*Block, error) {
	b := new(Block)
	err := s.DB.NewSelect().Model(b).Where("burn_block_hash = ?", hash).
		OrderExpr("canonical DESC, block_height DESC").Limit(1).Scan(ctx)
	return orNil(b, err)
}
