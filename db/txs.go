package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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
func (s *Store) PrincipalTxPage(ctx context.Context, principal string, q PrincipalTxQuery) (*TxPage, error) {
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
	var err error
	if v == txPageUnanchored {
		rows, err = s.positionPage(ctx, unanchoredTxPositionsSQL, principalTxPageSQL[v], args...)
	} else {
		err = s.scanPrepared(ctx, principalTxPageSQL[v], &rows, args...)
	}
	return txPageOf(rows, err)
}

// TxPage is a page of a principal's transactions with what its statement read beside them: the
// list's total (0 when the page is empty, as the reference counts over the page's rows) and the
// principal's newest transaction id (nil when the page is empty, which reads no row to carry
// it).
type TxPage struct {
	Total      int64
	LatestTxID []byte
	Txs        []*Tx
}

func txPageOf(rows []*principalPageRow, err error) (*TxPage, error) {
	if err != nil || len(rows) == 0 {
		return &TxPage{}, err
	}
	return &TxPage{Total: rows[0].Total, LatestTxID: rows[0].LatestTxID, Txs: pageTxs(rows)}, nil
}

// positionPage reads a page of a list whose unconfirmed microblock rows come first. Those exist
// only while the tip streams microblocks (never on a Nakamoto chain), so it reads the positions
// alone first (anchored, whose rows carry the tip's flag), and the whole statement only when the
// tip streams, or when the page came back empty and so could not tell.
func (s *Store) positionPage(ctx context.Context, anchored, whole string, args ...any) ([]*principalPageRow, error) {
	var rows []*principalPageRow
	if err := s.scanPrepared(ctx, anchored, &rows, args...); err != nil {
		return nil, err
	}
	if len(rows) > 0 && !rows[0].TipStreams {
		return rows, nil
	}
	rows = nil
	err := s.scanPrepared(ctx, whole, &rows, args...)
	return rows, err
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
		count := tipTxCountSQL
		if v == txPageUpTo {
			count = `coalesce((SELECT tx_count FROM principal_stx_checkpoints WHERE principal = $1::text AND block_height <= $4::integer
			ORDER BY block_height DESC LIMIT 1), 0)`
		}
		// Only the unanchored page lists the unconfirmed microblock transactions.
		if v == txPageUnanchored {
			out[v] = positionPageSQL(count, unconfirmedTxsSQL(TransferRolesSQL), "tseq")
		} else {
			out[v] = anchoredPageSQL(count, "tseq", false)
		}
	}
	return out
}()

// tipTxCountSQL is the size of a principal's ($1) transactions_with_transfers list at the tip;
// unanchoredTxPositionsSQL reads the unanchored page by position alone (positionPage).
var (
	tipTxCountSQL            = `coalesce((SELECT tx_count FROM principal_stx_totals WHERE principal = $1::text), 0)`
	unanchoredTxPositionsSQL = anchoredPageSQL(tipTxCountSQL, "tseq", true)
)

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
// has total 0. Each row also carries the principal's newest transaction id (latest_tx_id,
// latestTxIDOf), which the list's ETag names: one probe more instead of a statement of its own.
func positionPageSQL(count, u, seq string) string {
	return `WITH ` + tipSQL + `, u AS MATERIALIZED (` + u + `),
	c AS MATERIALIZED (SELECT ` + count + ` AS n, (SELECT count(*) FROM u) AS un, ` + latestTxIDOf("$1::text") + ` AS latest_tx_id),
	keys AS (
		(SELECT tx_id, index_block_hash, microblock_hash FROM u
			ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC LIMIT $2::bigint OFFSET $3::bigint)
		UNION ALL
		(SELECT x.tx_id, x.index_block_hash, x.microblock_hash FROM c CROSS JOIN LATERAL (
			SELECT tx_id, index_block_hash, microblock_hash, ` + seq + ` FROM principal_tx_positions
			WHERE principal = $1::text AND ` + seq + ` IS NOT NULL
			AND ` + positionRangeSQL(seq, "c.un") + `
			ORDER BY ` + seq + ` DESC) x)
	)
	SELECT t.*, c.n + c.un AS total, c.latest_tx_id FROM keys JOIN txs t USING (tx_id, index_block_hash, microblock_hash) CROSS JOIN c
	ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC LIMIT $2::bigint`
}

// positionRangeSQL is the range of positions seq of a page of a list numbered 1 to c.n, newest
// last: the $2 (the limit) below c.n minus the offset ($3), of which un rows, listed before the
// numbered ones, are taken first ("" when none are).
func positionRangeSQL(seq, un string) string {
	below := `c.n - greatest($3::bigint, 0)`
	if un != "" {
		below = `c.n - greatest($3::bigint - ` + un + `, 0)`
	}
	return seq + ` <= ` + below + ` AND ` + seq + ` > ` + below + ` - $2::bigint`
}

// anchoredPageSQL is positionPageSQL for a list without unconfirmed rows: the positions alone,
// and with tipFlag the chain tip's streaming flag on each row (tip_streams). Without the
// unconfirmed part's branch, the chain tip and the union, PostgreSQL runs it in about four
// fifths of the time (most of what is left is reading the page's rows). The range's ORDER BY
// keeps it a subquery of its own, so that its bounds, which read c, stay conditions of the
// index scan: pulled up into the join, the planner may filter the whole list with them instead.
func anchoredPageSQL(count, seq string, tipFlag bool) string {
	with, flag := `WITH `, ``
	if tipFlag {
		with, flag = `WITH `+tipSQL+`, `, `, (SELECT streaming FROM tip) AS tip_streams`
	}
	return with + `c AS MATERIALIZED (SELECT ` + count + ` AS n, ` + latestTxIDOf("$1::text") + ` AS latest_tx_id)
	SELECT t.*, c.n AS total, c.latest_tx_id` + flag + ` FROM c CROSS JOIN LATERAL (
		SELECT tx_id, index_block_hash, microblock_hash FROM principal_tx_positions
		WHERE principal = $1::text AND ` + seq + ` IS NOT NULL
		AND ` + positionRangeSQL(seq, "") + `
		ORDER BY ` + seq + ` DESC) x
	JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
	ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC LIMIT $2::bigint`
}

// principalTxsAt returns the principal's transactions_with_transfers of one block height.
func (s *Store) principalTxsAt(ctx context.Context, principal string, height int32) (*TxPage, error) {
	var rows []*principalPageRow
	err := s.DB.NewRaw(`SELECT t.*, count(*) OVER () AS total, `+latestTxIDOf("?0")+` AS latest_tx_id FROM (SELECT tx_id, index_block_hash, microblock_hash FROM principal_txs
		WHERE principal = ?0 AND canonical AND microblock_canonical AND `+TransferRolesSQL+` AND block_height = ?1) p
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
		ORDER BY t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC`, principal, height).Scan(ctx, &rows)
	if isNoRows(err) {
		err = nil
	}
	return txPageOf(rows, err)
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
	// LatestTxID is the principal's newest transaction id, which a page of its list reads.
	LatestTxID []byte `bun:"latest_tx_id"`
	// TipStreams is the chain tip's streaming flag, which positionPage reads.
	TipStreams bool `bun:"tip_streams"`
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

// BlockContents is what a block's JSON lists beyond its row: the ids of its canonical
// transactions, newest first within the block (microblock sequence, then tx index, descending),
// as the reference lists them; the canonical microblocks built on its parent (those its height
// accepted, whichever sibling confirmed them) with their canonical transaction counts; and the
// canonical microblocks built on it, both in sequence order.
type BlockContents struct {
	IndexBlockHash []byte
	TxIDs          [][]byte
	Accepted       []*MicroblockTxCount
	Streamed       [][]byte
}

// The parts of a row of blockContentsSQL.
const (
	contentsTxIDs = iota
	contentsAccepted
	contentsStreamed
)

// blockContentsParts are the three parts of BlockContents of the blocks whose index block
// hashes the bytea[] expression hashes holds, a part per row: a block's ids are one row (none
// for a block without transactions), read in the order of txs_block_ids_idx and concatenated,
// so that neither PostgreSQL nor Go handles a row or an array element per transaction (a
// transaction id is always 32 bytes); a microblock is a row. string_agg keeps the order of the
// sorted subquery: it has no ORDER BY of its own, which on PostgreSQL 15 would sort again what
// the index already returns in order. The microblock parts are read only when any microblock is
// stored (a one-time filter PostgreSQL evaluates once per statement): a chain that never streamed
// microblocks (one begun in Nakamoto) then pays nothing per block for them, where their
// aggregates cost a block page a fifth of its statement.
func blockContentsParts(hashes string) string {
	return strings.ReplaceAll(`SELECT k.h AS index_block_hash, `+strconv.Itoa(contentsTxIDs)+` AS part, ids.tx_ids AS bytes, 0::bigint AS tx_count, 0 AS seq
	FROM unnest($hashes) AS k(h)
	CROSS JOIN LATERAL (SELECT string_agg(tx_id, '') AS tx_ids FROM (SELECT tx_id FROM txs
		WHERE index_block_hash = k.h AND canonical AND microblock_canonical
		ORDER BY microblock_sequence DESC, tx_index DESC) t) ids
	WHERE ids.tx_ids IS NOT NULL
	UNION ALL
	SELECT b.index_block_hash, `+strconv.Itoa(contentsAccepted)+`, mb.microblock_hash,
		(SELECT count(*) FROM txs t WHERE t.microblock_hash = mb.microblock_hash AND t.canonical AND t.microblock_canonical),
		mb.microblock_sequence
	FROM blocks b CROSS JOIN LATERAL (`+fmt.Sprintf(microblockStateSQL, "b.parent_index_block_hash")+`) mb
	WHERE b.index_block_hash = ANY($hashes) AND `+anyMicroblockSQL+`
	UNION ALL
	SELECT k.h, `+strconv.Itoa(contentsStreamed)+`, mb.microblock_hash, 0, mb.microblock_sequence
	FROM unnest($hashes) AS k(h) CROSS JOIN LATERAL (`+fmt.Sprintf(microblockStateSQL, "k.h")+`) mb
	WHERE `+anyMicroblockSQL, "$hashes", hashes)
}

// anyMicroblockSQL is whether any microblock is stored.
const anyMicroblockSQL = `EXISTS (SELECT FROM microblocks)`

// blockContentsSQL reads the contents of blocks $1, a part per row, microblocks in sequence
// (then hash) order within their block and part.
var blockContentsSQL = blockContentsParts("$1::bytea[]") + `
	ORDER BY part, index_block_hash, seq, bytes`

// ContentsOfBlocks returns the contents of these blocks (by index block hash), one for each
// hash, in their order; a part with nothing in it is an empty list, as the block's JSON shows it.
func (s *Store) ContentsOfBlocks(ctx context.Context, hashes []string) ([]*BlockContents, error) {
	rows, err := s.queryPrepared(ctx, blockContentsSQL, byteaArray(hashes))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byHash := make(map[string]*BlockContents, len(hashes))
	out := make([]*BlockContents, len(hashes))
	for i, h := range hashes {
		out[i] = &BlockContents{IndexBlockHash: []byte(h), TxIDs: [][]byte{}, Accepted: []*MicroblockTxCount{}, Streamed: [][]byte{}}
		byHash[h] = out[i]
	}
	for rows.Next() {
		var hash, b []byte
		var part, count, seq int32
		if err := rows.Scan(&hash, int32Column{&part}, &b, int32Column{&count}, int32Column{&seq}); err != nil {
			return nil, err
		}
		c := byHash[string(hash)]
		if c == nil {
			return nil, fmt.Errorf("block contents: a row for block %x, which was not asked for", hash)
		}
		switch part {
		case contentsTxIDs:
			c.TxIDs = splitTxIDs(b)
		case contentsAccepted:
			c.Accepted = append(c.Accepted, &MicroblockTxCount{IndexBlockHash: c.IndexBlockHash, Hash: b, TxCount: count})
		case contentsStreamed:
			c.Streamed = append(c.Streamed, b)
		}
	}
	return out, rows.Err()
}

// splitTxIDs are the transaction ids concatenated in b, each 32 bytes, sharing b's memory.
func splitTxIDs(b []byte) [][]byte {
	ids := make([][]byte, len(b)/32)
	for j := range ids {
		ids[j] = b[32*j : 32*(j+1) : 32*(j+1)]
	}
	return ids
}
