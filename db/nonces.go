package db

import (
	"context"
)

// AccountNonces are the nonce figures of a principal, as the reference's getAddressNonces
// computes them.
type AccountNonces struct {
	Principal             string  `bun:"principal"`
	LastExecutedTxNonce   *int64  `bun:"last_executed"`
	LastMempoolTxNonce    *int64  `bun:"last_mempool"`
	PossibleNextNonce     int64   `bun:"-"`
	DetectedMissingNonces []int64 `bun:"-"`
	DetectedMempoolNonces []int64 `bun:"-"`
	// PendingNonces are the nonces of every pending transaction the principal sends or sponsors.
	PendingNonces []int64 `bun:"pending,array"`
}

// NoncesOf returns the nonce figures of each principal in one statement: the highest executed
// and pending nonces (as sender, or as sponsor of a sponsored transaction) come from the
// (sender_address, nonce) and (sponsor_address, nonce) indexes.
func (s *Store) NoncesOf(ctx context.Context, principals []string) ([]*AccountNonces, error) {
	var rows []*AccountNonces
	err := s.scanPrepared(ctx, noncesSQL, &rows, textArray(principals))
	for _, r := range rows {
		r.derive()
	}
	return rows, err
}

// noncesSQL reads the nonce figures of the principals $1; a principal's pending rows are found
// as pendingOf says.
var noncesSQL = `SELECT k.principal,
		greatest((SELECT max(nonce) FROM txs WHERE sender_address = k.principal AND canonical AND microblock_canonical),
			(SELECT max(sponsor_nonce) FROM txs WHERE sponsor_address = k.principal AND sponsored AND canonical AND microblock_canonical))::bigint AS last_executed,
		greatest((SELECT max(nonce) FROM mempool_txs WHERE ` + pendingOf("sender_address", "k.principal") + ` AND NOT pruned),
			(SELECT max(sponsor_nonce) FROM mempool_txs WHERE ` + pendingOf("sponsor_address", "k.principal") + ` AND sponsored AND NOT pruned))::bigint AS last_mempool,
		ARRAY(SELECT nonce::bigint FROM mempool_txs WHERE ` + pendingOf("sender_address", "k.principal") + ` AND NOT pruned
			UNION SELECT sponsor_nonce::bigint FROM mempool_txs WHERE ` + pendingOf("sponsor_address", "k.principal") + ` AND sponsored AND NOT pruned) AS pending
		FROM unnest($1::text[]) AS k(principal)`

// maxNonceGap bounds how many nonces below the last pending one are examined: a transaction
// with an absurd nonce must not make a request enumerate billions.
const maxNonceGap = 1000

// derive fills the figures computed from the scanned ones: the next nonce, and which nonces
// between the last executed and the last pending one the mempool has or misses (highest first).
func (n *AccountNonces) derive() {
	n.DetectedMissingNonces, n.DetectedMempoolNonces = []int64{}, []int64{}
	if n.LastExecutedTxNonce != nil || n.LastMempoolTxNonce != nil {
		n.PossibleNextNonce = max(deref(n.LastExecutedTxNonce), deref(n.LastMempoolTxNonce)) + 1
	}
	if n.LastExecutedTxNonce == nil || n.LastMempoolTxNonce == nil {
		return
	}
	lowest := max(*n.LastExecutedTxNonce, *n.LastMempoolTxNonce-1-maxNonceGap)
	pending := make(map[int64]struct{}, len(n.PendingNonces))
	for _, nonce := range n.PendingNonces {
		pending[nonce] = struct{}{}
	}
	for nonce := *n.LastMempoolTxNonce - 1; nonce > lowest; nonce-- {
		if _, ok := pending[nonce]; ok {
			n.DetectedMempoolNonces = append(n.DetectedMempoolNonces, nonce)
		} else {
			n.DetectedMissingNonces = append(n.DetectedMissingNonces, nonce)
		}
	}
}
