package db

import (
	"context"
	"database/sql"
	"errors"
)

// Account is the principal an account read is about; every figure of it is computed on demand.
type Account struct {
	Principal string
}

// StxBalance is a principal's STX balance at one height, computed as the reference API does:
// balance = received - sent - fees + matured miner rewards (locked STX stay in the balance).
type StxBalance struct {
	Principal string
	// Historical is set for reads at an earlier block; they have no mempool figures.
	Historical bool

	Balance                   string `bun:"balance"`
	TotalSent                 string `bun:"total_sent"`
	TotalReceived             string `bun:"total_received"`
	TotalFeesSent             string `bun:"total_fees_sent"`
	TotalMinerRewardsReceived string `bun:"total_miner_rewards_received"`

	LockTxID              []byte `bun:"lock_tx_id"`
	Locked                string `bun:"locked"`
	LockHeight            int32  `bun:"lock_height"`
	BurnchainLockHeight   int32  `bun:"burnchain_lock_height"`
	BurnchainUnlockHeight int32  `bun:"burnchain_unlock_height"`
}

// BalanceAt says which state a balance read sees: the tip (Height 0), the tip plus the
// unconfirmed microblocks (Unanchored), or every canonical row up to Height.
type BalanceAt struct {
	Height     int32
	Unanchored bool
}

// StxBalance reads a principal's STX balance. At the tip it costs the same for any history: the
// running totals of principal_stx_totals plus the few unconfirmed microblock rows above the tip
// when unanchored. Reads at an earlier height sum the history up to it.
func (s *Store) StxBalance(ctx context.Context, principal string, at BalanceAt) (*StxBalance, error) {
	b := &StxBalance{Principal: principal, Historical: at.Height > 0}
	var err error
	if b.Historical {
		err = s.DB.NewRaw(historicalTotalsSQL, principal, at.Height).Scan(ctx, b)
	} else {
		err = s.DB.NewRaw(tipTotalsSQL, principal, at.Unanchored).Scan(ctx, b)
	}
	if err != nil {
		return nil, err
	}
	height := at.Height
	if !b.Historical {
		height = -1 // the lock query reads the tip height itself
		if at.Unanchored {
			height = -2
		}
	}
	if err := s.DB.NewRaw(lockSQL, principal, height).Scan(ctx, b); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if b.Locked == "" {
		b.Locked = "0"
	}
	return b, nil
}

// tipTotalsSQL adds the unconfirmed microblock rows (above the tip, found through the
// height-ordered indexes) to the principal's running totals.
const tipTotalsSQL = `
WITH tip AS (SELECT block_height FROM chain_tip),
t AS (
	SELECT coalesce((SELECT total_received FROM principal_stx_totals WHERE principal = ?0), 0)
		+ CASE WHEN ?1 THEN coalesce((SELECT sum(amount) FROM stx_events, tip
			WHERE recipient = ?0 AND stx_events.block_height > tip.block_height AND canonical AND microblock_canonical), 0) ELSE 0 END AS total_received,
		coalesce((SELECT total_sent FROM principal_stx_totals WHERE principal = ?0), 0)
		+ CASE WHEN ?1 THEN coalesce((SELECT sum(amount) FROM stx_events, tip
			WHERE sender = ?0 AND stx_events.block_height > tip.block_height AND canonical AND microblock_canonical), 0) ELSE 0 END AS total_sent,
		coalesce((SELECT total_fees_sent FROM principal_stx_totals WHERE principal = ?0), 0)
		+ CASE WHEN ?1 THEN coalesce((SELECT sum(fee_rate) FROM txs, tip
			WHERE txs.block_height > tip.block_height AND canonical AND microblock_canonical
			AND ((sender_address = ?0 AND NOT sponsored) OR (sponsor_address = ?0 AND sponsored))), 0) ELSE 0 END AS total_fees_sent,
		coalesce((SELECT total_miner_rewards_received FROM principal_stx_totals WHERE principal = ?0), 0) AS total_miner_rewards_received
)
SELECT total_received - total_sent - total_fees_sent + total_miner_rewards_received AS balance,
	total_sent, total_received, total_fees_sent, total_miner_rewards_received FROM t`

// historicalTotalsSQL sums the canonical history up to height ?1.
const historicalTotalsSQL = `
WITH t AS (
	SELECT coalesce((SELECT sum(amount) FROM stx_events WHERE recipient = ?0 AND block_height <= ?1
			AND canonical AND microblock_canonical), 0) AS total_received,
		coalesce((SELECT sum(amount) FROM stx_events WHERE sender = ?0 AND block_height <= ?1
			AND canonical AND microblock_canonical), 0) AS total_sent,
		coalesce((SELECT sum(fee_rate) FROM txs WHERE block_height <= ?1 AND canonical AND microblock_canonical
			AND ((sender_address = ?0 AND NOT sponsored) OR (sponsor_address = ?0 AND sponsored))), 0) AS total_fees_sent,
		coalesce((SELECT sum(coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced)
			FROM miner_rewards WHERE recipient = ?0 AND canonical AND mature_block_height <= ?1), 0) AS total_miner_rewards_received
)
SELECT total_received - total_sent - total_fees_sent + total_miner_rewards_received AS balance,
	total_sent, total_received, total_fees_sent, total_miner_rewards_received FROM t`

// lockSQL finds the PoX lock in force at Stacks height H (?1; -1 = the tip, -2 = the tip plus
// the unconfirmed microblocks) and burn height B, the burn height of the canonical block at
// min(H, tip). As in the reference, a pox-2+ print event (the latest of the highest PoX version
// not yet force-unlocked at B) wins over the node's stx_lock events; a handle-unlock event means
// "nothing locked". The reference reads stx_lock events for pox-1 only; here they also stand in
// for pox-2+ locks whose print event carries no lock (each subject to its own version's forced
// unlock). Both lookups walk a (principal, height DESC) index and stop at one row.
const lockSQL = `
WITH tip AS (SELECT block_height FROM chain_tip),
hh AS (SELECT CASE ?1 WHEN -1 THEN tip.block_height WHEN -2 THEN tip.block_height + 1 ELSE ?1 END AS h,
		tip.block_height AS tip FROM tip),
bb AS (SELECT hh.h, coalesce((SELECT burn_block_height FROM blocks WHERE canonical AND block_height = least(hh.h, hh.tip) LIMIT 1), 0) AS b FROM hh),
ps AS (SELECT * FROM pox_state),
pox AS (
	SELECT e.tx_id, e.locked, e.burnchain_unlock_height, e.block_height, e.name FROM pox_events e, bb, ps
	WHERE e.stacker = ?0 AND e.canonical AND e.microblock_canonical AND e.block_height <= bb.h
	AND ((e.name <> 'handle-unlock' AND e.burnchain_unlock_height >= bb.b) OR (e.name = 'handle-unlock' AND e.burnchain_unlock_height < bb.b))
	AND NOT (e.pox_version = 2 AND ps.pox_v2_unlock_height > 0 AND bb.b > ps.pox_v2_unlock_height)
	AND NOT (e.pox_version = 3 AND ps.pox_v3_unlock_height > 0 AND bb.b > ps.pox_v3_unlock_height)
	AND NOT (e.pox_version = 4 AND ps.pox_v4_unlock_height > 0 AND bb.b > ps.pox_v4_unlock_height)
	ORDER BY e.pox_version DESC, e.block_height DESC, e.microblock_sequence DESC, e.tx_index DESC, e.event_index DESC
	LIMIT 1
),
stx_lock AS (
	SELECT l.tx_id, l.locked_amount AS locked, l.unlock_height AS burnchain_unlock_height, l.block_height, 'stx-lock'::text AS name
	FROM stx_lock_events l, bb, ps
	WHERE l.locked_address = ?0 AND l.canonical AND l.microblock_canonical AND l.block_height <= bb.h
	AND l.unlock_height >= bb.b AND NOT CASE l.contract_name
		WHEN 'pox' THEN ps.pox_v1_unlock_height > 0 AND bb.b > ps.pox_v1_unlock_height
		WHEN 'pox-2' THEN ps.pox_v2_unlock_height > 0 AND bb.b > ps.pox_v2_unlock_height
		WHEN 'pox-3' THEN ps.pox_v3_unlock_height > 0 AND bb.b > ps.pox_v3_unlock_height
		ELSE ps.pox_v4_unlock_height > 0 AND bb.b > ps.pox_v4_unlock_height END
	ORDER BY l.block_height DESC, l.microblock_sequence DESC, l.tx_index DESC, l.event_index DESC
	LIMIT 1
),
lock AS (SELECT * FROM pox UNION ALL (SELECT * FROM stx_lock WHERE NOT EXISTS (SELECT 1 FROM pox)))
SELECT tx_id AS lock_tx_id, locked, burnchain_unlock_height, block_height AS lock_height,
	coalesce((SELECT burn_block_height FROM blocks WHERE canonical AND blocks.block_height = lock.block_height LIMIT 1), 0) AS burnchain_lock_height
FROM lock WHERE name <> 'handle-unlock'`

// MempoolStxDelta is what the pending mempool transactions would move for a principal, as the
// reference counts it: token-transfer amounts in, amounts plus fees (as sender or sponsor) out.
type MempoolStxDelta struct {
	Inbound  string `bun:"inbound"`
	Outbound string `bun:"outbound"`
}

// MempoolStxDelta sums the principal's pending (unpruned) mempool transactions.
func (s *Store) MempoolStxDelta(ctx context.Context, principal string) (*MempoolStxDelta, error) {
	d := new(MempoolStxDelta)
	err := s.DB.NewRaw(`SELECT
		coalesce((SELECT sum(coalesce(token_transfer_amount, 0) + fee_rate) FROM mempool_txs WHERE NOT pruned AND sender_address = ?0), 0)
		+ coalesce((SELECT sum(fee_rate) FROM mempool_txs WHERE NOT pruned AND sponsored AND sponsor_address = ?0), 0) AS outbound,
		coalesce((SELECT sum(token_transfer_amount) FROM mempool_txs WHERE NOT pruned AND token_transfer_recipient_address = ?0), 0) AS inbound`,
		principal).Scan(ctx, d)
	return d, err
}

// LatestPrincipalTxID returns the id of the newest canonical transaction the principal took
// part in, or nil.
func (s *Store) LatestPrincipalTxID(ctx context.Context, principal string) ([]byte, error) {
	var id []byte
	err := s.DB.NewRaw(`SELECT tx_id FROM principal_txs WHERE principal = ? AND canonical AND microblock_canonical
		ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC LIMIT 1`, principal).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return id, err
}

// LatestMempoolTxID returns the id of the newest pending mempool transaction the principal
// sends, sponsors or receives STX in, or nil.
func (s *Store) LatestMempoolTxID(ctx context.Context, principal string) ([]byte, error) {
	var id []byte
	err := s.DB.NewRaw(`SELECT tx_id FROM (
		(SELECT tx_id, receipt_time FROM mempool_txs WHERE NOT pruned AND sender_address = ?0 ORDER BY receipt_time DESC LIMIT 1)
		UNION ALL (SELECT tx_id, receipt_time FROM mempool_txs WHERE NOT pruned AND sponsor_address = ?0 ORDER BY receipt_time DESC LIMIT 1)
		UNION ALL (SELECT tx_id, receipt_time FROM mempool_txs WHERE NOT pruned AND token_transfer_recipient_address = ?0 ORDER BY receipt_time DESC LIMIT 1)
	) m ORDER BY receipt_time DESC, tx_id DESC LIMIT 1`, principal).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return id, err
}

// BlockHeightByHash returns the height of the block with this block hash (the canonical one
// first, then the highest), or ok=false.
func (s *Store) BlockHeightByHash(ctx context.Context, hash []byte) (height int32, ok bool, err error) {
	err = s.DB.NewRaw(`SELECT block_height FROM blocks WHERE block_hash = ? ORDER BY canonical DESC, block_height DESC LIMIT 1`, hash).
		Scan(ctx, &height)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return height, err == nil, err
}
