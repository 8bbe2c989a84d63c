package db

import (
	"context"

	"github.com/uptrace/bun"
)

// pendingOf is the condition that column col of a pending mempool row names principal p (an
// expression of the statement), written as the range [p, p] instead of col = p. Reads run on
// generic plans, which estimate an equality by the column's number of distinct values: a
// mempool that a few senders fill (a faucet, a bot) makes that estimate most of the table, and
// the plan a scan of the whole mempool for every principal asked about. A range with bounds
// unknown at planning is estimated at a small fixed share of the rows, so the plan probes the
// column's index and costs the principal's own pending rows. For text in a deterministic
// collation the two conditions hold for the same rows.
func pendingOf(col, p string) string {
	return "(" + col + " >= " + p + " AND " + col + " <= " + p + ")"
}

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
