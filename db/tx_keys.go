package db

import (
	"cmp"
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TxKey names one row of a mined transaction (a fork or a microblock re-confirmation makes
// several): raw bytes carried as strings so that loaders can batch on it.
type TxKey struct {
	TxID           string
	IndexBlockHash string
	MicroblockHash string
}

// TxsByKey returns the transaction rows with these keys.
func (s *Store) TxsByKey(ctx context.Context, keys []TxKey) ([]*Tx, error) {
	ids, blocks, mbs := txKeyArrays(keys)
	var txs []*Tx
	err := s.scanPrepared(ctx, txSelect+` WHERE (tx_id, index_block_hash, microblock_hash) IN
		(SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[]))`, &txs, ids, blocks, mbs)
	return txs, err
}

// Key returns the row key of t.
func (t *Tx) Key() TxKey {
	return TxKey{TxID: string(t.TxID), IndexBlockHash: string(t.IndexBlockHash), MicroblockHash: string(t.MicroblockHash)}
}

// TxKey returns the row key of the event's transaction.
func (p *EventPosition) TxKey() TxKey {
	return TxKey{TxID: string(p.TxID), IndexBlockHash: string(p.IndexBlockHash), MicroblockHash: string(p.MicroblockHash)}
}

// TxPosition is a transaction row's key, its place in the chain and the kinds of its events:
// what reads of the row's events by one principal probe that principal's indexes with.
type TxPosition struct {
	Key                                      TxKey
	BlockHeight, MicroblockSequence, TxIndex int32
	Kinds                                    EventKinds
}

// Position returns the key, place and kinds of events of t, which must have been read with its
// type and kinds (as every set of columns is).
func (t *Tx) Position() TxPosition {
	return TxPosition{Key: t.Key(), BlockHeight: t.BlockHeight, MicroblockSequence: t.MicroblockSequence, TxIndex: t.TxIndex,
		Kinds: t.KindsOfEvents()}
}

// before reports whether t comes before u in chain order.
func (t TxPosition) before(u TxPosition) bool {
	return cmp.Or(cmp.Compare(t.BlockHeight, u.BlockHeight), cmp.Compare(t.MicroblockSequence, u.MicroblockSequence),
		cmp.Compare(t.TxIndex, u.TxIndex)) < 0
}

// PrincipalTxRow is a transaction in the history of a principal.
type PrincipalTxRow struct {
	Principal string `bun:"principal"`
	Tx        `bun:"extend"`
}

// TxsOfPrincipals returns, for each principal, one page of the canonical transactions it took
// part in, newest first, in one LATERAL statement over the principal_txs index; the first page of
// one principal (an account read) in a prepared one.
func (s *Store) TxsOfPrincipals(ctx context.Context, principals []string, k Keyset, cols TxColumns) ([]*PrincipalTxRow, error) {
	var rows []*PrincipalTxRow
	if len(principals) == 1 && !k.After.Set {
		err := s.scanPrepared(ctx, principalTxsFirstSQL(k.Reverse, cols), &rows, principals[0], k.Limit)
		return rows, err
	}
	where, args, order := k.clause(principalTxOrder, 3, true)
	_, _, outer := k.clause(txOrder, 3, true)
	err := pagePerKey{Select: "k.principal, " + cols.selectList(), Keys: textArray(principals), Type: "text", Key: "principal",
		Inner: `SELECT p.tx_id, p.index_block_hash, p.microblock_hash FROM principal_txs p
		WHERE p.principal = k.principal AND p.canonical AND p.microblock_canonical AND ` + where + `
		ORDER BY ` + order,
		Args: args, Limit: k.Limit, As: "p",
		Tail: `
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
		ORDER BY k.principal, ` + outer}.scan(ctx, s, &rows)
	return rows, err
}

// The chain order of a principal's history rows and of transactions.
var (
	principalTxOrder = []string{"p.block_height", "p.microblock_sequence", "p.tx_index"}
	txOrder          = []string{"t.block_height", "t.microblock_sequence", "t.tx_index"}
)

// principalTxsFirstSQL is the first page of one principal's transactions, newest first or
// (reverse) oldest first, reading cols: prepared, since planning the statement costs PostgreSQL
// more than running it. $1 is the principal and $2 the limit.
func principalTxsFirstSQL(reverse bool, cols TxColumns) string {
	k := Keyset{Reverse: reverse}
	_, _, order := k.clause(principalTxOrder, 3, true)
	_, _, outer := k.clause(txOrder, 3, true)
	return `SELECT $1::text AS principal, ` + cols.selectList() + ` FROM (SELECT p.tx_id, p.index_block_hash, p.microblock_hash FROM principal_txs p
		WHERE p.principal = $1::text AND p.canonical AND p.microblock_canonical ORDER BY ` + order + ` LIMIT $2::bigint) p
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)
		ORDER BY ` + outer
}

// TxsOfPrincipalIn returns the transactions a principal took part in within one anchor block
// (indexBlockHash) or within these unconfirmed microblocks, in chain order: what an address
// activity subscription reports when a block or microblock notice arrives.
func (s *Store) TxsOfPrincipalIn(ctx context.Context, principal string, indexBlockHash []byte, microblockHashes [][]byte) ([]*Tx, error) {
	var txs []*Tx
	err := s.DB.NewSelect().Model(&txs).
		Where("(tx_id, index_block_hash, microblock_hash) IN (?)", s.DB.NewSelect().Model((*PrincipalTx)(nil)).
			Column("tx_id", "index_block_hash", "microblock_hash").
			Where("principal = ?", principal).
			WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				return q.Where("index_block_hash = ?", indexBlockHash).
					WhereOr("index_block_hash = '' AND microblock_hash = ANY(?)", pgdialect.Array(microblockHashes))
			})).
		OrderExpr("microblock_sequence, tx_index").Scan(ctx)
	return txs, err
}
