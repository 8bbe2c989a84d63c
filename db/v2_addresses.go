package db

import (
	"context"
	"strconv"
)

// SummaryTxPage returns one page of a principal's transaction summaries list (the transactions
// where it plays any role but stx_lock, canonical ones and those of unconfirmed microblocks,
// newest in chain order first) and the list's size. As the reference counts over the page's
// rows, a page past the end has total 0. Neither part grows with the history: the size is the
// principal's running summary_tx_count plus its few unconfirmed microblock transactions, and the
// page is a range of sseq positions, read by position alone unless the tip streams microblocks
// (positionPage).
func (s *Store) SummaryTxPage(ctx context.Context, principal string, limit, offset int) (*TxPage, error) {
	return txPageOf(s.positionPage(ctx, summaryTxAnchoredPageSQL, summaryTxPageSQL, principal, limit, offset))
}

// summaryTxPageSQL reads a summaries page, numbered by sseq; summaryTxAnchoredPageSQL reads its
// anchored part alone, each row with the tip's streaming flag (tip_streams).
var (
	summaryCountSQL          = `coalesce((SELECT summary_tx_count FROM principal_stx_totals WHERE principal = $1::text), 0)`
	summaryTxPageSQL         = positionPageSQL(summaryCountSQL, unconfirmedTxsSQL(SummaryRolesSQL), "sseq")
	summaryTxAnchoredPageSQL = anchoredPageSQL(summaryCountSQL, "sseq", true)
)

// CanonicalTxPositions returns the keys and places of a transaction's canonical rows
// (unconfirmed microblock rows included) and whether any row of it exists, canonical or not.
func (s *Store) CanonicalTxPositions(ctx context.Context, txID []byte) (txs []TxPosition, exists bool, err error) {
	var rows []*Tx
	if err := s.scanPrepared(ctx, txPositionsSQL, &rows, txID); err != nil {
		return nil, false, err
	}
	for _, r := range rows {
		if r.Canonical && r.MicroblockCanonical {
			txs = append(txs, r.Position())
		}
	}
	return txs, len(rows) > 0, nil
}

const txPositionsSQL = `SELECT tx_id, index_block_hash, microblock_hash, canonical, microblock_canonical,
	block_height, microblock_sequence, tx_index, type_id, event_kinds FROM txs WHERE tx_id = $1::bytea`

// ContractDeployment is the deployment of a contract: its newest canonical deploy transaction
// (BlockHeight set), else its pending one with the lowest nonce.
type ContractDeployment struct {
	ContractID  string `bun:"contract_id"`
	TxID        []byte `bun:"tx_id"`
	Status      int16  `bun:"status"`
	BlockHeight *int32 `bun:"block_height"`
}

// TxStatus is the deploy transaction's status.
func (d *ContractDeployment) TxStatus() (TxStatus, error) { return txStatus(d.Status) }

// ContractStatuses returns the deployments of these contracts, the mined ones ordered by
// contract id, then the pending ones ordered by contract id, as the reference lists them;
// contracts with neither are left out. Each contract is one probe of the deploy indexes.
func (s *Store) ContractStatuses(ctx context.Context, ids []string) ([]*ContractDeployment, error) {
	var rows []*ContractDeployment
	return rows, s.scanPrepared(ctx, contractStatusSQL, &rows, textArray(ids))
}

// contractStatusSQL: of several canonical deploys the newest counts (ties: the lowest status),
// of several pending ones the lowest nonce.
var contractStatusSQL = `WITH ids AS (SELECT DISTINCT id FROM unnest($1::text[]) AS k(id)),
	mined AS (SELECT m.* FROM ids CROSS JOIN LATERAL (
		SELECT smart_contract_contract_id AS contract_id, tx_id, status, block_height FROM txs
		WHERE smart_contract_contract_id = ids.id AND type_id IN (` + strconv.Itoa(int(TypeSmartContract)) + `, ` +
	strconv.Itoa(int(TypeVersionedSmartContract)) + `) AND canonical AND microblock_canonical
		ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, status LIMIT 1) m),
	pending AS (SELECT p.* FROM ids CROSS JOIN LATERAL (
		SELECT smart_contract_contract_id AS contract_id, tx_id, status, NULL::integer AS block_height FROM mempool_txs
		WHERE smart_contract_contract_id = ids.id AND NOT pruned AND smart_contract_contract_id IS NOT NULL AND type_id IN (` +
	strconv.Itoa(int(TypeSmartContract)) + `, ` + strconv.Itoa(int(TypeVersionedSmartContract)) + `)
		ORDER BY nonce LIMIT 1) p WHERE ids.id NOT IN (SELECT contract_id FROM mined))
	SELECT contract_id, tx_id, status, block_height FROM (SELECT 0 AS part, * FROM mined UNION ALL SELECT 1, * FROM pending) r
	ORDER BY part, contract_id`

// MempoolFeePriority are the fee quartiles (25th, 50th, 75th and 95th percentiles, rounded)
// of the pending transactions of one kind: TypeID nil for all of them, else the payload type
// (versioned deploys counted with deploys). Empty when there are none.
type MempoolFeePriority struct {
	TypeID *int16  `bun:"type_id"`
	No     *string `bun:"no_priority"`
	Low    *string `bun:"low_priority"`
	Medium *string `bun:"medium_priority"`
	High   *string `bun:"high_priority"`
}

// MempoolFeePriorities returns the fee priorities of the pending mempool, all transactions
// first, then per payload type (coinbases left out), as the reference computes them.
func (s *Store) MempoolFeePriorities(ctx context.Context) ([]*MempoolFeePriority, error) {
	var rows []*MempoolFeePriority
	return rows, s.scanPrepared(ctx, mempoolFeePrioritiesSQL, &rows)
}

// mempoolFeePrioritiesSQL rounds the continuous percentiles as the reference does (round() of
// a double precision) and renders them as integers.
var mempoolFeePrioritiesSQL = func() string {
	q := func(p string) string {
		return `round(percentile_cont(` + p + `) WITHIN GROUP (ORDER BY fee_rate))::numeric::text`
	}
	cols := q("0.25") + ` AS no_priority, ` + q("0.50") + ` AS low_priority, ` + q("0.75") + ` AS medium_priority, ` +
		q("0.95") + ` AS high_priority`
	return `SELECT NULL::smallint AS type_id, ` + cols + ` FROM mempool_txs WHERE NOT pruned
	UNION ALL
	SELECT * FROM (SELECT CASE type_id WHEN ` + strconv.Itoa(int(TypeVersionedSmartContract)) + ` THEN ` +
		strconv.Itoa(int(TypeSmartContract)) + ` ELSE type_id END::smallint AS type_id, ` + cols + `
		FROM mempool_txs WHERE NOT pruned AND type_id NOT IN (` + strconv.Itoa(int(TypeCoinbase)) + `, ` +
		strconv.Itoa(int(TypeCoinbaseToAltRecipient)) + `) GROUP BY 1 ORDER BY 1) g`
}()

// Pox4Lock is a principal's pox-4 lock in force at the tip as the reference's v2 balance reads
// it: the newest pox-4 print event still in force at the tip block's burn height (a
// handle-unlock one meaning none), with no other PoX version and no forced unlock considered.
type Pox4Lock struct {
	Principal             string `bun:"principal"`
	TxID                  []byte `bun:"tx_id"`
	Locked                string `bun:"locked"`
	BlockHeight           int32  `bun:"block_height"`
	BurnchainUnlockHeight int32  `bun:"burnchain_unlock_height"`
}

// Pox4Locks returns the pox-4 locks of these principals (none for a principal without one),
// each one probe of the principal's PoX events.
func (s *Store) Pox4Locks(ctx context.Context, principals []string) ([]*Pox4Lock, error) {
	var rows []*Pox4Lock
	return rows, s.scanPrepared(ctx, pox4LocksSQL, &rows, textArray(principals))
}

const pox4LocksSQL = `WITH at AS MATERIALIZED (SELECT t.block_height AS h, coalesce((SELECT burn_block_height FROM blocks
		WHERE canonical AND block_height = t.block_height LIMIT 1), 0) AS b FROM chain_tip t WHERE t.id)
	SELECT k.principal, l.tx_id, l.locked, l.block_height, l.burnchain_unlock_height
	FROM unnest($1::text[]) AS k(principal) CROSS JOIN at CROSS JOIN LATERAL (
		SELECT e.tx_id, e.locked, e.block_height, e.burnchain_unlock_height, e.name FROM pox_events e
		WHERE e.stacker = k.principal AND e.pox_version = 4 AND e.canonical AND e.microblock_canonical AND e.block_height <= at.h
		AND ((e.name <> 'handle-unlock' AND e.burnchain_unlock_height >= at.b) OR (e.name = 'handle-unlock' AND e.burnchain_unlock_height < at.b))
		ORDER BY e.block_height DESC, e.microblock_sequence DESC, e.tx_index DESC, e.event_index DESC LIMIT 1) l
	WHERE l.name <> 'handle-unlock'`
