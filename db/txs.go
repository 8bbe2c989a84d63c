package db

import (
	"context"
	"fmt"
)

// AnyTransaction is a mined (*Tx) or mempool (*MempoolTx) transaction.
type AnyTransaction interface {
	// Fields returns the columns derived from the transaction's bytes.
	Fields() *TxFields
}

func (t *Tx) Fields() *TxFields        { return &t.TxFields }
func (t *MempoolTx) Fields() *TxFields { return &t.TxFields }

// CanonicalTxsByID returns the canonical, microblock-canonical rows of these transactions, reading
// cols; the unconfirmed microblock rows above the tip only with unanchored.
func (s *Store) CanonicalTxsByID(ctx context.Context, ids []string, unanchored bool, cols TxColumns) ([]*Tx, error) {
	var txs []*Tx
	q := txSelects[cols] + " WHERE tx_id = ANY($1::bytea[]) AND canonical AND microblock_canonical"
	if !unanchored {
		q += " AND block_height <= (SELECT block_height FROM chain_tip WHERE id)"
	}
	return txs, s.scanPrepared(ctx, q, &txs, byteaArray(ids))
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

// PrincipalTxPage returns one page of the transactions of a principal's
// transactions_with_transfers list (canonical transactions in which it has a transfer role,
// newest first) and how many there are, in one statement (total 0 when the page is empty). Neither
// grows with the history: the count is the principal's running tx_count (at the tip) or its
// checkpoint (at an earlier height), and the page is the range of positions below count-offset
// (principal_tx_positions), plus the few unconfirmed microblock transactions with unanchored.
// One block's transactions (AtHeight) are that block's range of principal_txs_transfers_idx.
func (s *Store) PrincipalTxPage(ctx context.Context, principal string, q PrincipalTxQuery) (int64, []*Tx, error) {
	if q.AtHeight > 0 {
		return s.principalTxsAt(ctx, principal, q.AtHeight)
	}
	v, args := txPageTip, []any{principal, q.Limit, q.Offset}
	switch {
	case q.UpTo > 0:
		v, args = txPageUpTo, append(args, q.UpTo)
	case q.Unanchored:
		v = txPageUnanchored
	}
	var rows []*principalPageRow
	if err := s.scanPrepared(ctx, principalTxPageSQL[v], &rows, args...); err != nil || len(rows) == 0 {
		return 0, nil, err
	}
	return rows[0].Total, pageTxs(rows), nil
}

// The kinds of transactions_with_transfers page: at the tip, with the unconfirmed microblock
// transactions above it, and up to an earlier height.
const (
	txPageTip = iota
	txPageUnanchored
	txPageUpTo
)

// principalTxPageSQL are the page statements of each kind, prepared: planning them costs
// PostgreSQL several times what running them does. $4 is the height bound of txPageUpTo.
var principalTxPageSQL = func() (out [3]string) {
	for v := range out {
		count := `coalesce((SELECT tx_count FROM principal_stx_totals WHERE principal = $1::text), 0)`
		if v == txPageUpTo {
			count = `coalesce((SELECT tx_count FROM principal_stx_checkpoints WHERE principal = $1::text AND block_height <= $4::integer
			ORDER BY block_height DESC LIMIT 1), 0)`
		}
		// Only the unanchored page lists the unconfirmed microblock transactions.
		u := `SELECT NULL::bytea AS tx_id, NULL::bytea AS index_block_hash, NULL::bytea AS microblock_hash,
		0 AS block_height, 0 AS microblock_sequence, 0 AS tx_index WHERE false`
		if v == txPageUnanchored {
			u = unconfirmedTxsSQL(TransferRolesSQL)
		}
		out[v] = positionPageSQL(count, u, "tseq")
	}
	return out
}()

// unconfirmedTxsSQL selects the principal's ($1) transactions in unconfirmed microblocks, in the
// roles roles names.
func unconfirmedTxsSQL(roles string) string {
	return `SELECT tx_id, index_block_hash, microblock_hash, block_height, microblock_sequence, tx_index FROM principal_txs
		WHERE principal = $1::text AND canonical AND microblock_canonical AND ` + roles + `
		AND block_height ` + aboveTipSQL
}

// positionPageSQL reads a page of a principal's list numbered by seq in principal_tx_positions,
// with the list's size: the rows of u (newer than every anchored one) first, then the positions
// below count minus the offset. $1 is the principal, $2 the limit, $3 the offset. The total is
// read with the page, so that, as the reference counts over the page's rows, a page past the end
// has total 0.
func positionPageSQL(count, u, seq string) string {
	return `WITH ` + tipSQL + `, u AS MATERIALIZED (` + u + `),
	c AS MATERIALIZED (SELECT ` + count + ` AS n, (SELECT count(*) FROM u) AS un),
	keys AS (
		(SELECT tx_id, index_block_hash, microblock_hash FROM u
			ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC LIMIT $2::bigint OFFSET $3::bigint)
		UNION ALL
		(SELECT x.tx_id, x.index_block_hash, x.microblock_hash FROM c CROSS JOIN LATERAL (
			SELECT tx_id, index_block_hash, microblock_hash, ` + seq + ` FROM principal_tx_positions
			WHERE principal = $1::text AND ` + seq + ` IS NOT NULL
			AND ` + seq + ` <= c.n - greatest($3::bigint - c.un, 0) AND ` + seq + ` > c.n - greatest($3::bigint - c.un, 0) - $2::bigint
			ORDER BY ` + seq + ` DESC) x)
	)
	SELECT t.*, c.n + c.un AS total FROM keys JOIN txs t USING (tx_id, index_block_hash, microblock_hash) CROSS JOIN c
	ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC LIMIT $2::bigint`
}

// principalTxsAt returns the principal's transactions_with_transfers of one block height.
func (s *Store) principalTxsAt(ctx context.Context, principal string, height int32) (int64, []*Tx, error) {
	var rows []*principalPageRow
	err := s.DB.NewRaw(`SELECT t.*, count(*) OVER () AS total FROM (SELECT tx_id, index_block_hash, microblock_hash FROM principal_txs
		WHERE principal = ?0 AND canonical AND microblock_canonical AND `+TransferRolesSQL+` AND block_height = ?1) p
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
		ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC`, principal, height).Scan(ctx, &rows)
	if err != nil && !isNoRows(err) {
		return 0, nil, err
	}
	if len(rows) == 0 {
		return 0, nil, nil
	}
	return rows[0].Total, pageTxs(rows), nil
}

func pageTxs(rows []*principalPageRow) []*Tx {
	txs := make([]*Tx, len(rows))
	for i, r := range rows {
		txs[i] = &r.Tx
	}
	return txs
}

// principalPageRow is a transaction of a page with the count of the whole list.
type principalPageRow struct {
	Tx    `bun:"extend"`
	Total int64 `bun:"total"`
}

// BlockTxIDs are the transaction ids of a block.
type BlockTxIDs struct {
	IndexBlockHash []byte
	TxIDs          [][]byte
}

// TxIDsOfBlocks returns the ids of the canonical transactions of these blocks, newest first
// within each block (microblock sequence, then tx index, descending), as the reference lists
// them. Each block is one row (none for a block without transactions): its ids read in the order
// of txs_block_ids_idx and concatenated, so that neither PostgreSQL nor Go handles a row or an
// array element per transaction (a transaction id is always 32 bytes).
func (s *Store) TxIDsOfBlocks(ctx context.Context, hashes []string) ([]*BlockTxIDs, error) {
	var rows []struct {
		IndexBlockHash []byte `bun:"index_block_hash"`
		TxIDs          []byte `bun:"tx_ids"`
	}
	// string_agg keeps the order of the sorted subquery: it has no ORDER BY of its own, which on
	// PostgreSQL 15 would sort again what the index already returns in order.
	err := s.scanPrepared(ctx, `SELECT k.h AS index_block_hash, ids.tx_ids FROM unnest($1::bytea[]) AS k(h)
		CROSS JOIN LATERAL (SELECT string_agg(tx_id, '') AS tx_ids FROM (SELECT tx_id FROM txs
			WHERE index_block_hash = k.h AND canonical AND microblock_canonical
			ORDER BY microblock_sequence DESC, tx_index DESC) t) ids
		WHERE ids.tx_ids IS NOT NULL`, &rows, byteaArray(hashes))
	if err != nil {
		return nil, err
	}
	blocks := make([]*BlockTxIDs, len(rows))
	for i, r := range rows {
		ids := make([][]byte, len(r.TxIDs)/32)
		for j := range ids {
			ids[j] = r.TxIDs[32*j : 32*(j+1) : 32*(j+1)]
		}
		blocks[i] = &BlockTxIDs{IndexBlockHash: r.IndexBlockHash, TxIDs: ids}
	}
	return blocks, nil
}

// MicroblockTxCount is a microblock a block confirmed, with its canonical transaction count.
type MicroblockTxCount struct {
	IndexBlockHash []byte `bun:"index_block_hash"`
	Hash           []byte `bun:"microblock_hash"`
	TxCount        int32  `bun:"tx_count"`
}

// microblockStateSQL selects the canonical microblocks built on a block (the %[1]s expression),
// one row per microblock with its sequence. A microblock has a row per anchor block that
// confirmed or orphaned it; the reference API keeps a single state, the one the block that last
// became (or stopped being) the parent's canonical child gave it. So: the state of its row on
// that child, or while unconfirmed its own; not canonical when that child has no row for it (a
// block that arrived off the chain and did not confirm it); else, the parent being off the chain,
// canonical when some block confirmed it.
const microblockStateSQL = `SELECT m.microblock_hash, min(m.microblock_sequence) AS microblock_sequence
	FROM microblocks m WHERE m.parent_index_block_hash = %[1]s
	GROUP BY m.microblock_hash
	HAVING coalesce(bool_or(m.microblock_canonical) FILTER (WHERE m.canonical),
		CASE WHEN EXISTS (SELECT 1 FROM blocks c WHERE c.parent_index_block_hash = %[1]s AND c.canonical) THEN false END,
		bool_or(m.microblock_canonical))`

// MicroblockTxCountsOfBlocks returns, for these blocks, the canonical microblocks built on each
// block's parent (those its height accepted, whichever sibling confirmed them), in sequence
// order, with their canonical transaction counts.
func (s *Store) MicroblockTxCountsOfBlocks(ctx context.Context, hashes []string) ([]*MicroblockTxCount, error) {
	var rows []*MicroblockTxCount
	err := s.scanPrepared(ctx, `SELECT b.index_block_hash, mb.microblock_hash,
		(SELECT count(*) FROM txs t WHERE t.microblock_hash = mb.microblock_hash AND t.canonical AND t.microblock_canonical) AS tx_count
		FROM blocks b CROSS JOIN LATERAL (`+fmt.Sprintf(microblockStateSQL, "b.parent_index_block_hash")+`) mb
		WHERE b.index_block_hash = ANY($1::bytea[])
		ORDER BY b.index_block_hash, mb.microblock_sequence, mb.microblock_hash`, &rows, byteaArray(hashes))
	return rows, err
}

// StreamedMicroblockHashesOfBlocks returns, for these blocks, the canonical microblocks built on
// each block (by the state of MicroblockTxCountsOfBlocks), in sequence order.
func (s *Store) StreamedMicroblockHashesOfBlocks(ctx context.Context, hashes []string) ([]*MicroblockTxCount, error) {
	var rows []*MicroblockTxCount
	err := s.scanPrepared(ctx, `SELECT k.h AS index_block_hash, mb.microblock_hash
		FROM unnest($1::bytea[]) AS k(h) CROSS JOIN LATERAL (`+fmt.Sprintf(microblockStateSQL, "k.h")+`) mb
		ORDER BY k.h, mb.microblock_sequence, mb.microblock_hash`, &rows, byteaArray(hashes))
	return rows, err
}

// BlockByBurnBlockHash returns the highest canonical block anchored in this burn block (or, when
// none is canonical, the highest non-canonical one), or nil.
func (s *Store) BlockByBurnBlockHash(ctx context.Context, hash []byte) (*Block, error) {
	var bs []*Block
	err := s.scanPrepared(ctx, blockSelect+" WHERE burn_block_hash = $1 ORDER BY canonical DESC, block_height DESC LIMIT 1", &bs, hash)
	return first(bs, err)
}
