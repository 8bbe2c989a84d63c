package chainwrite

import "github.com/stxgraph/stxgraph/db"

// inBlocks selects the rows of the blocks in ?0, the ones a change to which rows count adds or
// subtracts.
const inBlocks = "index_block_hash = ANY(?0)"

// totalsSQL sums the counted rows of the blocks per principal and block height (per), adds
// them, multiplied by ?1 (1 or -1), to the running totals (upd), and then writes either the
// blocks' checkpoints and positions (adding) or deletes them (subtracting). Every CTE sees the
// totals as they were before the statement (prev).
var totalsSQL = `
WITH d (principal, block_height, received, sent, fees, rewards, tx_count, tx_count_all, summary_tx_count) AS (` + db.TotalsRows(inBlocks) + `
), per AS (
	SELECT principal, block_height, ` + db.PerSums + `
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
	CASE WHEN p.` + db.TransferRolesSQL + ` THEN coalesce(prev.tx_count, 0) + count(*) FILTER (WHERE p.` + db.TransferRolesSQL + `) OVER w END,
	CASE WHEN ` + db.SummaryRolesSQL + ` THEN coalesce(prev.summary_tx_count, 0) + count(*) FILTER (WHERE ` + db.SummaryRolesSQL + `) OVER w END,
	p.block_height, p.tx_id, p.index_block_hash, p.microblock_hash
FROM principal_txs p LEFT JOIN prev USING (principal)
WHERE p.index_block_hash = ANY(?0) AND p.canonical AND p.microblock_canonical
WINDOW w AS (PARTITION BY p.principal ORDER BY ` + db.TxPositionOrder + ` ROWS UNBOUNDED PRECEDING)
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
// an import left the totals to be recomputed at its end. Blocks are added above every counted
// block, in height order, and subtracted from the top: positions and checkpoints are numbered
// after the counted ones and dropped past the new counts. ApplyBlock and restoreOrphanedChain
// fail on a block out of that order (TestBlocksCountedInHeightOrder); the replays of forked
// fixtures in package ingest compare the counts with recomputations (checkTotals,
// checkPositions).
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
