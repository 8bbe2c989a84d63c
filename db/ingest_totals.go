package db

import "strings"

// principal_stx_totals holds, per principal, the sums the balance endpoint needs over the rows
// that count: canonical, microblock-canonical and anchored (index_block_hash <> ''). Every
// change to which rows count goes through addTotals: add a block's counted rows after they
// start counting, subtract them before they stop. Blocks start counting in height order and
// stop counting from the top, so the same statement keeps, beside the totals, the principal's
// checkpoints (its totals after each block) and its transactions' positions in its lists.

// inBlocks selects the rows of the blocks in ?0, the ones a change to which rows count adds or
// subtracts; anchored selects every row of a block, for a recomputation (see totalsRecomputes).
const (
	inBlocks = "index_block_hash = ANY(?0)"
	anchored = "index_block_hash <> ''"
)

// totalsRows are the counted rows of the blocks that blocks selects, one per principal and
// amount, with the height at which they count. The amounts a row does not carry are NULL
// (typed in the first branch, which sets the column types), which sum skips without adding.
func totalsRows(blocks string) string {
	return strings.ReplaceAll(`
	SELECT recipient, block_height, amount, NULL::numeric, NULL::numeric, NULL::numeric, 0, 0, 0 FROM stx_events
	WHERE $blocks AND canonical AND microblock_canonical AND recipient IS NOT NULL
	UNION ALL
	SELECT sender, block_height, NULL, amount, NULL, NULL, 0, 0, 0 FROM stx_events
	WHERE $blocks AND canonical AND microblock_canonical AND sender IS NOT NULL
	UNION ALL
	SELECT CASE WHEN sponsored THEN sponsor_address ELSE sender_address END, block_height, NULL, NULL, fee_rate, NULL, 0, 0, 0 FROM txs
	WHERE $blocks AND canonical AND microblock_canonical
	UNION ALL
	SELECT principal, block_height, NULL, NULL, NULL, NULL, CASE WHEN `+transferRolesSQL+` THEN 1 ELSE 0 END, 1,
		CASE WHEN `+summaryRolesSQL+` THEN 1 ELSE 0 END FROM principal_txs
	WHERE $blocks AND canonical AND microblock_canonical
	UNION ALL
	SELECT recipient, mature_block_height, NULL, NULL, NULL, coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced, 0, 0, 0
	FROM miner_rewards WHERE $blocks AND canonical`, "$blocks", blocks)
}

// perSums sum the totalsRows (d) of a group.
const perSums = `coalesce(sum(received), 0) AS received, coalesce(sum(sent), 0) AS sent, coalesce(sum(fees), 0) AS fees,
		coalesce(sum(rewards), 0) AS rewards, sum(tx_count) AS tx_count, sum(tx_count_all) AS tx_count_all,
		sum(summary_tx_count) AS summary_tx_count`

// txPositionOrder orders a principal's transactions in its lists.
const txPositionOrder = "block_height, microblock_sequence, tx_index, tx_id"

// totalsSQL sums the counted rows of the blocks per principal and block height (per), adds
// them, multiplied by ?1 (1 or -1), to the running totals (upd), and then writes either the
// blocks' checkpoints and positions (adding) or deletes them (subtracting). Every CTE sees the
// totals as they were before the statement (prev).
var totalsSQL = `
WITH d (principal, block_height, received, sent, fees, rewards, tx_count, tx_count_all, summary_tx_count) AS (` + totalsRows(inBlocks) + `
), per AS (
	SELECT principal, block_height, ` + perSums + `
	FROM d WHERE principal IS NOT NULL GROUP BY principal, block_height
), prev AS (
	SELECT t.* FROM principal_stx_totals t WHERE t.principal IN (SELECT principal FROM per)
), upd AS (
	INSERT INTO principal_stx_totals AS t (principal, total_received, total_sent, total_fees_sent, total_miner_rewards_received, tx_count, tx_count_all,
		summary_tx_count)
	SELECT principal, ?1 * sum(received), ?1 * sum(sent), ?1 * sum(fees), ?1 * sum(rewards), ?1 * sum(tx_count), ?1 * sum(tx_count_all),
		?1 * sum(summary_tx_count)
	FROM per GROUP BY principal
	ON CONFLICT (principal) DO UPDATE SET
		total_received = t.total_received + excluded.total_received,
		total_sent = t.total_sent + excluded.total_sent,
		total_fees_sent = t.total_fees_sent + excluded.total_fees_sent,
		total_miner_rewards_received = t.total_miner_rewards_received + excluded.total_miner_rewards_received,
		tx_count = t.tx_count + excluded.tx_count,
		tx_count_all = t.tx_count_all + excluded.tx_count_all,
		summary_tx_count = t.summary_tx_count + excluded.summary_tx_count
	RETURNING t.principal, t.tx_count_all
)`

// checkpointsAddSQL writes each principal's totals after each block of the batch, and numbers
// the batch's transactions of each principal after the ones it already had.
const checkpointsAddSQL = `, cp AS (
	INSERT INTO principal_stx_checkpoints AS c (principal, block_height, total_received, total_sent, total_fees_sent,
		total_miner_rewards_received, tx_count, tx_count_all)
	SELECT per.principal, per.block_height,
		coalesce(prev.total_received, 0) + sum(per.received) OVER w, coalesce(prev.total_sent, 0) + sum(per.sent) OVER w,
		coalesce(prev.total_fees_sent, 0) + sum(per.fees) OVER w,
		coalesce(prev.total_miner_rewards_received, 0) + sum(per.rewards) OVER w,
		coalesce(prev.tx_count, 0) + sum(per.tx_count) OVER w, coalesce(prev.tx_count_all, 0) + sum(per.tx_count_all) OVER w
	FROM per LEFT JOIN prev USING (principal)
	WINDOW w AS (PARTITION BY per.principal ORDER BY per.block_height ROWS UNBOUNDED PRECEDING)
	ON CONFLICT (principal, block_height) DO UPDATE SET
		total_received = excluded.total_received, total_sent = excluded.total_sent,
		total_fees_sent = excluded.total_fees_sent, total_miner_rewards_received = excluded.total_miner_rewards_received,
		tx_count = excluded.tx_count, tx_count_all = excluded.tx_count_all
	RETURNING 1
)
INSERT INTO principal_tx_positions (principal, seq, tseq, sseq, block_height, tx_id, index_block_hash, microblock_hash)
SELECT p.principal, coalesce(prev.tx_count_all, 0) + row_number() OVER w,
	CASE WHEN p.` + transferRolesSQL + ` THEN coalesce(prev.tx_count, 0) + count(*) FILTER (WHERE p.` + transferRolesSQL + `) OVER w END,
	CASE WHEN ` + summaryRolesSQL + ` THEN coalesce(prev.summary_tx_count, 0) + count(*) FILTER (WHERE ` + summaryRolesSQL + `) OVER w END,
	p.block_height, p.tx_id, p.index_block_hash, p.microblock_hash
FROM principal_txs p LEFT JOIN prev USING (principal)
WHERE p.index_block_hash = ANY(?0) AND p.canonical AND p.microblock_canonical
WINDOW w AS (PARTITION BY p.principal ORDER BY ` + txPositionOrder + ` ROWS UNBOUNDED PRECEDING)
ON CONFLICT (principal, seq) DO UPDATE SET tseq = excluded.tseq, sseq = excluded.sseq, block_height = excluded.block_height,
	tx_id = excluded.tx_id, index_block_hash = excluded.index_block_hash, microblock_hash = excluded.microblock_hash`

// checkpointsSubtractSQL drops the blocks' checkpoints and the positions past each principal's
// new count.
const checkpointsSubtractSQL = `, cp AS (
	DELETE FROM principal_stx_checkpoints c USING per
	WHERE c.principal = per.principal AND c.block_height = per.block_height
	RETURNING 1
)
DELETE FROM principal_tx_positions x USING upd
WHERE x.principal = upd.principal AND x.seq > upd.tx_count_all`

// addTotals adds (sign 1) or subtracts (sign -1) the counted rows of the given blocks, unless
// an import left the totals to be recomputed at its end.
func (w *Writer) addTotals(blocks [][]byte, sign int) {
	if len(blocks) == 0 || w.totalsDeferred {
		return
	}
	if sign > 0 {
		w.exec(totalsSQL+checkpointsAddSQL, byteArray(blocks), sign)
	} else {
		w.exec(totalsSQL+checkpointsSubtractSQL, byteArray(blocks), sign)
	}
	w.addEventPositions(blocks, sign)
	w.addTokenHoldings(blocks, sign)
}
