package db

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// Account is the principal an account read is about; every figure of it is computed on demand.
type Account struct {
	Principal string
}

// StxBalance is a principal's STX balance at one height, computed as the reference API does:
// balance = received - sent - fees + matured miner rewards (locked STX stay in the balance). It
// carries what else one account read needs: the mempool figures, the newest transaction ids and
// the transaction count.
type StxBalance struct {
	Principal string    `bun:"principal"`
	At        BalanceAt `bun:"-"`

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

	// MempoolInbound and MempoolOutbound are what the pending (unpruned) mempool transactions
	// would move, as the reference counts it: token-transfer amounts in, amounts plus fees (as
	// sender or sponsor) out. Nil for reads at an earlier block.
	MempoolInbound  *string `bun:"mempool_inbound"`
	MempoolOutbound *string `bun:"mempool_outbound"`
	// EstimatedBalance is the balance after them (nil with them).
	EstimatedBalance *string `bun:"estimated_balance"`
	// LatestTxID is the newest canonical transaction the principal took part in, and
	// LatestMempoolTxID its newest pending one that it sends, sponsors or receives STX in.
	LatestTxID        []byte `bun:"latest_tx_id"`
	LatestMempoolTxID []byte `bun:"latest_mempool_tx_id"`
	// TxCount is how many canonical transactions the principal took part in, the unconfirmed
	// microblock ones above the tip included.
	TxCount int64 `bun:"tx_count"`
}

// BalanceAt says which state a balance read sees: the tip (Height 0), the tip plus the
// unconfirmed microblocks (Unanchored), or every canonical row up to Height.
type BalanceAt struct {
	Height     int32
	Unanchored bool
}

// StxBalances reads the STX balances of many principals at one state in one statement. At the
// tip a balance costs the same for any history: the running totals of principal_stx_totals, plus
// the few unconfirmed microblock rows above the tip when unanchored; reads at an earlier height
// take the principal's checkpoint at that height.
func (s *Store) StxBalances(ctx context.Context, principals []string, at BalanceAt) ([]*StxBalance, error) {
	var rows []*StxBalance
	var err error
	switch {
	case len(principals) == 1 && at == (BalanceAt{}):
		err = s.scanPrepared(ctx, tipBalanceSQL, &rows, principals[0])
	case len(principals) == 1 && at.Height > 0:
		err = s.scanPrepared(ctx, historicalBalanceSQL, &rows, principals[0], at.Height)
	default:
		err = s.DB.NewRaw(stxBalancesSQL(at, "unnest(?0::text[])", "?1"), pgdialect.Array(principals), at.Height).Scan(ctx, &rows)
	}
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	for _, r := range rows {
		r.At = at
	}
	return rows, nil
}

// tipBalanceSQL and historicalBalanceSQL read one principal's balance at the tip (the REST
// balance and ETag read) and at an earlier height ($2): prepared statements, since planning the
// statement costs PostgreSQL several times what running it does.
var (
	tipBalanceSQL        = stxBalancesSQL(BalanceAt{}, "(VALUES ($1::text))", "")
	historicalBalanceSQL = stxBalancesSQL(BalanceAt{Height: 1}, "(VALUES ($1::text))", "$2::integer")
)

// stxBalancesSQL is the balance statement for one kind of state: principals is the row source of
// the principals (a one-column relation) and height the parameter holding the height of a
// historical read. Each kind gets its own statement so that every sum walks an index on
// (principal or height) and the planner sees no branch it does not need. h is the Stacks height
// the read sees and b the burn height of the canonical block at min(h, tip), which decides
// whether a lock is still in force.
func stxBalancesSQL(at BalanceAt, principals, height string) string {
	h, totals, mempool := "tip.tip", tipTotals, mempoolFigures
	switch {
	case at.Height > 0:
		h, totals, mempool = height, historicalTotals, "NULL AS mempool_inbound, NULL AS mempool_outbound, NULL AS estimated_balance"
	case at.Unanchored:
		h, totals = "tip.tip + 1", unanchoredTotals
	}
	return `WITH tip AS MATERIALIZED (SELECT coalesce(max(block_height), 0) AS tip,
	coalesce(bool_or(microblock_sequence IS NOT NULL), false) AS streaming FROM chain_tip WHERE id),
at AS MATERIALIZED (SELECT ` + h + ` AS h, tip.tip, tip.streaming, coalesce((SELECT burn_block_height FROM blocks
	WHERE canonical AND block_height = least(` + h + `, tip.tip) LIMIT 1), 0) AS b FROM tip)
SELECT k.principal, ` + balanceSQL + ` AS balance,
	t.total_sent, t.total_received, t.total_fees_sent, t.total_miner_rewards_received,
	l.tx_id AS lock_tx_id, coalesce(l.locked, 0) AS locked, coalesce(l.block_height, 0) AS lock_height,
	coalesce((SELECT burn_block_height FROM blocks WHERE canonical AND blocks.block_height = l.block_height LIMIT 1), 0) AS burnchain_lock_height,
	coalesce(l.unlock, 0) AS burnchain_unlock_height, ` + mempool + `, ` + latestFigures + `
FROM ` + principals + ` AS k(principal) CROSS JOIN at CROSS JOIN pox_state ps
CROSS JOIN LATERAL (` + totals + `) t
CROSS JOIN LATERAL (` + pendingTxs + `) mp
LEFT JOIN LATERAL (` + lockInForce + `) l ON true`
}

// tipTotals are the principal's running totals. Each kind of totals also carries tx_count_all,
// the running count of the principal's transactions (which latestFigures shows at every state).
const tipTotals = `SELECT coalesce(pt.total_received, 0) AS total_received, coalesce(pt.total_sent, 0) AS total_sent,
	coalesce(pt.total_fees_sent, 0) AS total_fees_sent, coalesce(pt.total_miner_rewards_received, 0) AS total_miner_rewards_received,
	coalesce(pt.tx_count_all, 0) AS tx_count_all
	FROM (SELECT 1) one LEFT JOIN principal_stx_totals pt ON pt.principal = k.principal`

// unanchoredTotals add the unconfirmed microblock rows above the tip to the running totals. The
// fees are found among the rows with an empty index_block_hash, the unconfirmed ones, read
// first (the OFFSET 0 keeps the planner from starting at the sender's index instead, which
// walks its whole history on a long chain; a height bound against the tip, unknown at
// planning, would do the same).
const unanchoredTotals = `SELECT r.total_received + coalesce((SELECT sum(amount) FROM stx_events
		WHERE recipient = k.principal AND block_height > at.tip AND canonical AND microblock_canonical), 0) AS total_received,
	r.total_sent + coalesce((SELECT sum(amount) FROM stx_events
		WHERE sender = k.principal AND block_height > at.tip AND canonical AND microblock_canonical), 0) AS total_sent,
	r.total_fees_sent + coalesce((SELECT sum(u.fee_rate) FROM (SELECT fee_rate, sender_address, sponsor_address, sponsored FROM txs
		WHERE index_block_hash = '' AND canonical AND microblock_canonical OFFSET 0) u
		WHERE (u.sender_address = k.principal AND NOT u.sponsored) OR (u.sponsor_address = k.principal AND u.sponsored)), 0) AS total_fees_sent,
	r.total_miner_rewards_received, r.tx_count_all
	FROM (` + tipTotals + `) r`

// historicalTotals are the principal's newest checkpoint at or below h: one index probe.
const historicalTotals = `SELECT coalesce(c.total_received, 0) AS total_received, coalesce(c.total_sent, 0) AS total_sent,
	coalesce(c.total_fees_sent, 0) AS total_fees_sent, coalesce(c.total_miner_rewards_received, 0) AS total_miner_rewards_received,
	coalesce((SELECT tx_count_all FROM principal_stx_totals WHERE principal = k.principal), 0) AS tx_count_all
	FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM principal_stx_checkpoints
		WHERE principal = k.principal AND block_height <= at.h ORDER BY block_height DESC LIMIT 1) c ON true`

// pendingTxs are the figures of the principal's pending (unpruned) mempool transactions, in one
// pass over the rows it sends, sponsors or receives: what they move in and out, and the newest.
var pendingTxs = `SELECT sum(token_transfer_amount) FILTER (WHERE token_transfer_recipient_address = k.principal) AS inbound,
	coalesce(sum(coalesce(token_transfer_amount, 0) + fee_rate) FILTER (WHERE sender_address = k.principal), 0)
	+ coalesce(sum(fee_rate) FILTER (WHERE sponsored AND sponsor_address = k.principal), 0) AS outbound,
	(array_agg(tx_id ORDER BY receipt_time DESC, tx_id DESC))[1] AS latest
	FROM mempool_txs WHERE NOT pruned AND (` + pendingOf("sender_address", "k.principal") + ` OR ` +
	pendingOf("sponsor_address", "k.principal") + ` OR ` + pendingOf("token_transfer_recipient_address", "k.principal") + `)`

// balanceSQL is the balance the totals make.
const balanceSQL = `t.total_received - t.total_sent - t.total_fees_sent + t.total_miner_rewards_received`

// mempoolFigures are the pending figures a balance at the tip carries.
const mempoolFigures = `coalesce(mp.inbound, 0) AS mempool_inbound, mp.outbound AS mempool_outbound,
	` + balanceSQL + ` + coalesce(mp.inbound, 0) - mp.outbound AS estimated_balance`

// latestFigures are the newest canonical and the newest pending transaction of the principal,
// and how many transactions it took part in (its running tx_count_all, plus its unconfirmed
// microblock transactions above the tip, counted only while the tip streams some): the figures
// every balance row carries alike, whatever state it is read at.
var latestFigures = `mp.latest AS latest_mempool_tx_id, t.tx_count_all
	+ (SELECT count(*) FROM principal_txs WHERE principal = k.principal AND canonical AND microblock_canonical
		AND block_height > at.tip AND at.streaming) AS tx_count,
	` + latestTxIDOf("k.principal") + ` AS latest_tx_id`

// latestTxIDOf is the id of the newest canonical transaction principal (an SQL expression) took
// part in, or null: what a balance row and a page of transfers carry for the ETag.
func latestTxIDOf(principal string) string {
	return `(SELECT tx_id FROM principal_txs WHERE principal = ` + principal + ` AND canonical AND microblock_canonical
		ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC LIMIT 1)`
}

// lockInForce is the PoX lock in force at Stacks height h and burn height b, as the reference
// finds it: the newest pox-1 stx_lock event (ignored once pox-1 is force-unlocked), overridden by
// the newest pox-2/3/4 print event of the highest version not force-unlocked at b; a
// handle-unlock event means nothing is locked. pox_events hold the state after each operation
// (patchPoxEvent). Both lookups walk a (principal, height DESC) index over the principal's few
// PoX events.
const lockInForce = `SELECT * FROM (
	(SELECT e.tx_id, e.locked, e.burnchain_unlock_height AS unlock, e.block_height, e.name, e.pox_version FROM pox_events e
	WHERE e.stacker = k.principal AND e.canonical AND e.microblock_canonical AND e.block_height <= at.h
	AND ((e.name <> 'handle-unlock' AND e.burnchain_unlock_height >= at.b) OR (e.name = 'handle-unlock' AND e.burnchain_unlock_height < at.b))
	AND NOT (e.pox_version = 2 AND ps.pox_v2_unlock_height > 0 AND at.b > ps.pox_v2_unlock_height)
	AND NOT (e.pox_version = 3 AND ps.pox_v3_unlock_height > 0 AND at.b > ps.pox_v3_unlock_height)
	AND NOT (e.pox_version = 4 AND ps.pox_v4_unlock_height > 0 AND at.b > ps.pox_v4_unlock_height)
	ORDER BY e.pox_version DESC, e.block_height DESC, e.microblock_sequence DESC, e.tx_index DESC, e.event_index DESC
	LIMIT 1)
	UNION ALL
	(SELECT s.tx_id, s.locked_amount, s.unlock_height, s.block_height, 'stx-lock', 1 FROM stx_lock_events s
	WHERE s.locked_address = k.principal AND s.canonical AND s.microblock_canonical AND s.block_height <= at.h
	AND s.unlock_height >= at.b AND NOT (ps.pox_v1_unlock_height > 0 AND at.b > ps.pox_v1_unlock_height)
	ORDER BY s.block_height DESC, s.microblock_sequence DESC, s.tx_index DESC, s.event_index DESC
	LIMIT 1)
	ORDER BY pox_version DESC LIMIT 1) lock WHERE name <> 'handle-unlock'`

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
