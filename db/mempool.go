package db

import (
	"context"

	"github.com/uptrace/bun"
)

// MempoolPage returns a page of pending (unpruned) mempool transactions, newest first by receipt
// time; a non-empty address keeps those it sends, sponsors or receives STX in.
func (s *Store) MempoolPage(ctx context.Context, address string, k Keyset) ([]*MempoolTx, error) {
	where, args, order := k.clause([]string{"receipt_time", "tx_id"}, 1, true)
	var txs []*MempoolTx
	q := s.DB.NewSelect().Model(&txs).Where("NOT pruned").Where(where, args...)
	if address != "" {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("sender_address = ?", address).WhereOr("sponsor_address = ?", address).
				WhereOr("token_transfer_recipient_address = ?", address)
		})
	}
	err := q.OrderExpr(order).Limit(int64(k.Limit)).Scan(ctx)
	return txs, err
}

// MempoolCount counts the pending mempool transactions.
func (s *Store) MempoolCount(ctx context.Context) (int64, error) {
	return s.DB.NewSelect().Model((*MempoolTx)(nil)).Where("NOT pruned").Count(ctx)
}

// MempoolTxsByID returns the mempool rows (pruned or not) with these tx ids.
func (s *Store) MempoolTxsByID(ctx context.Context, ids []string) ([]*MempoolTx, error) {
	var txs []*MempoolTx
	err := s.scanPrepared(ctx, mempoolTxSelect+" WHERE tx_id = ANY($1::bytea[])", &txs, byteaArray(ids))
	return txs, err
}
