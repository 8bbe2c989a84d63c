package db

// principal_stx_totals holds, per principal, the sums the balance endpoint needs over the rows
// that count: canonical, microblock-canonical and anchored (index_block_hash <> ''). Every
// change to which rows count goes through addTotals: add a block's counted rows after they
// start counting, subtract them before they stop.

// totalsSQL sums the counted rows of the blocks in ?0 per principal and adds them, multiplied
// by ?1 (1 or -1), to the running totals.
const totalsSQL = `
WITH d (principal, received, sent, fees, rewards, tx_count) AS (
	SELECT recipient, amount, 0, 0, 0, 0 FROM stx_events
	WHERE index_block_hash = ANY(?0) AND canonical AND microblock_canonical AND recipient IS NOT NULL
	UNION ALL
	SELECT sender, 0, amount, 0, 0, 0 FROM stx_events
	WHERE index_block_hash = ANY(?0) AND canonical AND microblock_canonical AND sender IS NOT NULL
	UNION ALL
	SELECT CASE WHEN sponsored THEN sponsor_address ELSE sender_address END, 0, 0, fee_rate, 0, 0 FROM txs
	WHERE index_block_hash = ANY(?0) AND canonical AND microblock_canonical
	UNION ALL
	SELECT principal, 0, 0, 0, 0, 1 FROM principal_txs -- tx_count: the transactions_with_transfers count
	WHERE index_block_hash = ANY(?0) AND canonical AND microblock_canonical AND ` + transferRolesSQL + `
	UNION ALL
	SELECT recipient, 0, 0, 0, coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced, 0
	FROM miner_rewards WHERE index_block_hash = ANY(?0) AND canonical
)
INSERT INTO principal_stx_totals AS t (principal, total_received, total_sent, total_fees_sent, total_miner_rewards_received, tx_count)
SELECT principal, ?1 * sum(received), ?1 * sum(sent), ?1 * sum(fees), ?1 * sum(rewards), ?1 * sum(tx_count)
FROM d WHERE principal IS NOT NULL GROUP BY principal
ON CONFLICT (principal) DO UPDATE SET
	total_received = t.total_received + excluded.total_received,
	total_sent = t.total_sent + excluded.total_sent,
	total_fees_sent = t.total_fees_sent + excluded.total_fees_sent,
	total_miner_rewards_received = t.total_miner_rewards_received + excluded.total_miner_rewards_received,
	tx_count = t.tx_count + excluded.tx_count`

// addTotals adds (sign 1) or subtracts (sign -1) the counted rows of the given blocks.
func (w *Writer) addTotals(blocks [][]byte, sign int) {
	if len(blocks) > 0 {
		w.exec(totalsSQL, byteArray(blocks), sign)
	}
}
