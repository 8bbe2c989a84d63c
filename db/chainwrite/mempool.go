package chainwrite

import (
	"context"
	"strconv"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// minedSQL is true when the mempool row's transaction is mined on the canonical chain
// (anchored, or in a microblock that is still canonical).
const minedSQL = `EXISTS (SELECT 1 FROM txs WHERE txs.tx_id = mempool_txs.tx_id AND txs.canonical AND txs.microblock_canonical)`

// InsertMempoolTxs adds transactions the node accepted into its mempool. A transaction seen
// before is revived when it was dropped, unless it is already mined.
func (w *Writer) InsertMempoolTxs(ctx context.Context, rows []*db.MempoolTx) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([][]byte, len(rows))
	for i, r := range rows {
		r.Status, r.Pruned = db.TxStatusPending, false
		r.ReceiptTime = w.ReceivedAt.Unix()
		ids[i] = r.TxID
	}
	// The tip height is read by the statement itself, which saves a round trip.
	w.insert(w.tx.NewInsert().Model(&rows).Value("receipt_block_height", "(SELECT block_height FROM chain_tip)").
		On("CONFLICT (tx_id) DO UPDATE SET pruned = false, status = 0, replaced_by_tx_id = NULL WHERE mempool_tx.pruned"))
	// The update must see the inserted rows, so it is a statement of its own; it touches the
	// mempool too.
	w.exec(`WITH u AS (UPDATE mempool_txs SET pruned = true WHERE tx_id = ANY(?0) AND NOT pruned AND `+minedSQL+` RETURNING 1)
		UPDATE chain_tip SET mempool_updated_at = ?1`, byteArray(ids), w.ReceivedAt)
	w.seesNewRows = true
	w.notifyMempool(notices.KindMempool, ids)
	return nil
}

// DropMempoolTxs marks transactions the node dropped, with the reason's status and the
// transaction that replaced them, if any.
func (w *Writer) DropMempoolTxs(ctx context.Context, ids [][]byte, status int16, replacedBy []byte) error {
	if len(ids) == 0 {
		return nil
	}
	w.exec(`WITH u AS (UPDATE mempool_txs SET pruned = true, status = ?0, replaced_by_tx_id = ?1 WHERE tx_id = ANY(?2) RETURNING 1)
		UPDATE chain_tip SET mempool_updated_at = ?3`, status, replacedBy, byteArray(ids), w.ReceivedAt)
	w.notifyMempool(notices.KindMempoolDrop, ids)
	return nil
}

// mempoolNoticeTxs is how many transactions one mempool notice names, so that the longest
// notice stays below maxNotifyPayload. PostgreSQL writes the payload's fixed part
// ({"kind" : "mempool_drop", "tx_ids" : [], "principals" : []}) in under 64 bytes, and a list
// element in quotes followed by ", ": a transaction adds its id ("0x" and 64 hex digits) and at
// most four principals, two standard ones (sender and sponsor, 41 characters) and two that may
// name a contract (recipient and deployed contract, 41 + 1 + 128).
const (
	mempoolNoticeTxBytes = (2 + 64 + 4) + 2*(41+4) + 2*(41+1+128+4)
	mempoolNoticeTxs     = (maxNotifyPayload - 64) / mempoolNoticeTxBytes
)

// mempoolNoticesSQL queues the notices of kind ?1 about the mempool transactions ?2, on channel
// ?0: one per mempoolNoticeTxs of them, naming their ids in the message's order (subscribers
// report them so) and the principals whose pending state they are part of, read from their rows
// as the statement finds them. Those are the rows the pending figures of a balance (sender,
// sponsor, STX recipient) and the pending nonces (sender, sponsor) read, and a deploy's contract,
// whose status it is. An id without a row names none.
var mempoolNoticesSQL = `INSERT INTO notices (channel, payload)
	SELECT ?0, json_build_object('kind', ?1::text, 'tx_ids', c.ids, 'principals', c.principals)::text
	FROM (SELECT (i.n - 1) / ` + strconv.Itoa(mempoolNoticeTxs) + ` AS chunk, json_agg('0x' || encode(i.id, 'hex') ORDER BY i.n) AS ids,
		(SELECT json_agg(DISTINCT p.name) FROM mempool_txs m CROSS JOIN LATERAL (VALUES (m.sender_address), (m.sponsor_address),
			(m.token_transfer_recipient_address), (m.smart_contract_contract_id)) AS p(name)
			WHERE m.tx_id = ANY(array_agg(i.id)) AND p.name IS NOT NULL) AS principals
		FROM unnest(?2::bytea[]) WITH ORDINALITY AS i(id, n)
		GROUP BY 1) c
	ORDER BY c.chunk`

// notifyMempool queues the notices of kind about the mempool transactions ids
// (mempoolNoticesSQL), behind the writes that store them.
func (w *Writer) notifyMempool(kind string, ids [][]byte) {
	w.exec(mempoolNoticesSQL, notices.EventsChannel, kind, byteArray(ids))
}

// restoreMempool puts the transactions of the txs rows matching where back into the mempool
// as pending, unless another copy is mined canonically. As in the reference, every kind of
// transaction comes back (coinbase and tenure-change ones too, though no block can mine them
// again), and one never seen in the mempool is received at its block's burn time.
func (w *Writer) restoreMempool(where string, args ...any) {
	q := `WITH r AS (INSERT INTO mempool_txs AS m (tx_id, raw_tx, type_id, status, pruned, receipt_time, receipt_block_height,
		nonce, fee_rate, sender_address, sponsored, sponsor_address, sponsor_nonce, anchor_mode, post_condition_mode,
		token_transfer_recipient_address, token_transfer_amount, smart_contract_contract_id,
		contract_call_contract_id, contract_call_function_name)
	SELECT DISTINCT ON (t.tx_id) t.tx_id, t.raw_tx, t.type_id, 0, false, t.burn_block_time, (SELECT block_height FROM chain_tip),
		t.nonce, t.fee_rate, t.sender_address, t.sponsored, t.sponsor_address, t.sponsor_nonce, t.anchor_mode, t.post_condition_mode,
		t.token_transfer_recipient_address, t.token_transfer_amount, t.smart_contract_contract_id,
		t.contract_call_contract_id, t.contract_call_function_name
	FROM txs t WHERE (` + where + `)
		AND NOT EXISTS (SELECT 1 FROM txs c WHERE c.tx_id = t.tx_id AND c.canonical AND c.microblock_canonical)
	ORDER BY t.tx_id, t.block_height DESC, t.microblock_sequence DESC, t.tx_index DESC
	ON CONFLICT (tx_id) DO UPDATE SET pruned = false, status = 0, replaced_by_tx_id = NULL RETURNING 1)` + touchIfAny
	w.exec(q, append([]any{w.ReceivedAt.Unix()}, args...)...)
	w.seesNewRows = true
}

// touchIfAny ends a "WITH r AS (… RETURNING 1)" statement: it bumps mempool_updated_at when
// the statement changed a mempool row. Its placeholder is the statement's first argument.
const touchIfAny = ` UPDATE chain_tip SET mempool_updated_at = to_timestamp(?0) WHERE EXISTS (SELECT 1 FROM r)`

// pruneMinedSQL marks pruned (rows r) the mempool transactions that the canonical transactions
// of the blocks ?1 mined and, as the reference does, every other mempool transaction that
// spends one of the account nonces they used, as origin or as sponsor: the node can never mine
// those any more. Each kind is found through its own index of the unpruned rows (the
// transaction id, the origin's and the sponsor's address; OFFSET 0 keeps each nonce a probe of
// its index, which the planner would otherwise trade for a scan of a small mempool), so that
// the statement reads the rows concerned, not every pending transaction.
const pruneMinedSQL = `WITH mined AS (SELECT tx_id, sender_address, nonce, sponsor_address, sponsor_nonce FROM txs
			WHERE index_block_hash = ANY(?1) AND canonical AND microblock_canonical),
		used (address, nonce) AS (SELECT sender_address, nonce FROM mined
			UNION SELECT sponsor_address, sponsor_nonce FROM mined WHERE sponsor_address IS NOT NULL),
		r AS (UPDATE mempool_txs SET pruned = true WHERE NOT pruned AND tx_id IN (SELECT tx_id FROM mined
			UNION SELECT m.tx_id FROM used u CROSS JOIN LATERAL (SELECT tx_id FROM mempool_txs
				WHERE sender_address = u.address AND nonce = u.nonce AND NOT pruned OFFSET 0) m
			UNION SELECT m.tx_id FROM used u CROSS JOIN LATERAL (SELECT tx_id FROM mempool_txs
				WHERE sponsor_address = u.address AND sponsor_nonce = u.nonce AND NOT pruned OFFSET 0) m)
			RETURNING 1)`

// pruneMempool removes from the mempool the transactions now mined canonically in blocks, and
// those spending the nonces they used (pruneMinedSQL). tip, when set, is the new chain tip,
// stored by the same statement.
func (w *Writer) pruneMempool(blocks [][]byte, tip *db.Block) {
	if len(blocks) == 0 {
		return
	}
	if tip == nil {
		w.exec(pruneMinedSQL+touchIfAny, w.ReceivedAt.Unix(), byteArray(blocks))
		return
	}
	w.exec(pruneMinedSQL+` UPDATE chain_tip SET
		mempool_updated_at = CASE WHEN EXISTS (SELECT 1 FROM r) THEN to_timestamp(?0) ELSE mempool_updated_at END,
		block_height = ?2, block_hash = ?3, index_block_hash = ?4, burn_block_height = ?5,
		microblock_hash = '', microblock_sequence = NULL`,
		w.ReceivedAt.Unix(), byteArray(blocks), tip.BlockHeight, tip.BlockHash, tip.IndexBlockHash, tip.BurnBlockHeight)
}

// pruneMempoolTxIDs removes the given transactions (mined in unconfirmed microblocks).
func (w *Writer) pruneMempoolTxIDs(ids [][]byte) {
	w.exec("WITH r AS (UPDATE mempool_txs SET pruned = true WHERE NOT pruned AND tx_id = ANY(?1) RETURNING 1)"+touchIfAny,
		w.ReceivedAt.Unix(), byteArray(ids))
}
