package db

import (
	"fmt"
	"strings"
)

// principal_stx_totals holds, per principal, the sums the balance endpoint needs over the rows
// that count: canonical, microblock-canonical and anchored (index_block_hash <> ''). Every
// change to which rows count goes through the writer's addTotals (package chainwrite): add a
// block's counted rows after they start counting, subtract them before they stop. Blocks start counting in height order and
// stop counting from the top, so the same statement keeps, beside the totals, the principal's
// checkpoints (its totals after each block) and its transactions' positions in its lists.

// anchored selects every counted row of the chain, for a recomputation (see totalsRecomputes);
// the writer selects the rows of the blocks whose rows start or stop counting.
const anchored = "index_block_hash <> ''"

// TotalsRows are the counted rows of the blocks that blocks selects, one per principal and
// amount, with the height at which they count. The amounts a row does not carry are NULL
// (typed in the first branch, which sets the column types), which sum skips without adding.
func TotalsRows(blocks string) string {
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
	SELECT principal, block_height, NULL, NULL, NULL, NULL, CASE WHEN `+TransferRolesSQL+` THEN 1 ELSE 0 END, 1,
		CASE WHEN `+SummaryRolesSQL+` THEN 1 ELSE 0 END FROM principal_txs
	WHERE $blocks AND canonical AND microblock_canonical
	UNION ALL
	SELECT recipient, mature_block_height, NULL, NULL, NULL, coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced, 0, 0, 0
	FROM miner_rewards WHERE $blocks AND canonical`, "$blocks", blocks)
}

// PerSums sum the TotalsRows (d) of a group.
const PerSums = `coalesce(sum(received), 0) AS received, coalesce(sum(sent), 0) AS sent, coalesce(sum(fees), 0) AS fees,
		coalesce(sum(rewards), 0) AS rewards, sum(tx_count) AS tx_count, sum(tx_count_all) AS tx_count_all,
		sum(summary_tx_count) AS summary_tx_count`

// TxPositionOrder orders a principal's transactions in its lists.
const TxPositionOrder = "block_height, microblock_sequence, tx_index, tx_id"

// principal_event_positions numbers, per principal, the canonical anchored events it is a party
// of (the tx/events listing by address), and its contract logs among them (log_seq, a contract's
// events), and principal_event_counts counts both. addTotals keeps
// them with the totals: a block's events are numbered after the principal's earlier ones when the
// block starts counting, and dropped when it stops (blocks stop counting from the top).

// EventParties are the events of the blocks that blocks selects (see inBlocks) with each
// principal they list them under, one branch per kind (its index in eventTables) and principal
// column; an event whose sender is its recipient is listed once.
func EventParties(blocks string) string {
	var branches []string
	for kind, t := range eventTables {
		cols := principalColumns[t.kind]
		for i, col := range cols {
			branch := fmt.Sprintf(`SELECT %s, %d, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index
	FROM %s WHERE %s AND canonical AND microblock_canonical`, col, kind, t.table, blocks)
			if i > 0 {
				branch += " AND " + col + " IS DISTINCT FROM " + cols[0]
			}
			branches = append(branches, branch)
		}
	}
	return strings.Join(branches, "\n\tUNION ALL\n\t")
}

// EventPositionOrder orders a principal's events in its list.
const EventPositionOrder = "block_height, microblock_sequence, tx_index, event_index, kind, tx_id"

// ft_balances and nft_custody follow the rows that count (canonical, microblock-canonical and
// anchored), as principal_stx_totals does: the writer adds a block's token events after the block
// starts counting and takes them back before it stops, and an import into an empty chain
// computes both once at its end (totalsRecomputes).

// FtBalanceRows are the counted ft_events of the blocks that blocks selects (see inBlocks), one
// row per party: the amount in for the recipient (mint, transfer), out for the sender
// (transfer, burn).
func FtBalanceRows(blocks string) string {
	return strings.ReplaceAll(`
	SELECT recipient, asset_identifier, amount FROM ft_events
	WHERE $blocks AND canonical AND microblock_canonical AND recipient IS NOT NULL
	UNION ALL
	SELECT sender, asset_identifier, -amount FROM ft_events
	WHERE $blocks AND canonical AND microblock_canonical AND sender IS NOT NULL`, "$blocks", blocks)
}

// NftCustodyColumns are the columns of nft_custody, as nft_events names them.
const NftCustodyColumns = `asset_identifier, value, recipient, tx_id, index_block_hash, microblock_hash, block_height,
	microblock_sequence, tx_index, event_index`

// NftLastEvents is, per token (asset, value), the newest counted event of the blocks that
// blocks selects: the token's custody after them.
func NftLastEvents(blocks string) string {
	return `SELECT DISTINCT ON (asset_identifier, value) ` + NftCustodyColumns + `
	FROM nft_events WHERE ` + blocks + ` AND canonical AND microblock_canonical
	ORDER BY asset_identifier, value, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC`
}

// ftBalancesRecomputeSQL sums every principal's counted token amounts.
var ftBalancesRecomputeSQL = `
INSERT INTO ft_balances (principal, asset_identifier, balance)
SELECT principal COLLATE "C", asset_identifier COLLATE "C", sum(amount) FROM (` + FtBalanceRows(anchored) + `
) d (principal, asset_identifier, amount) GROUP BY 1, 2`

// nftCustodyRecomputeSQL finds every token's newest counted event.
var nftCustodyRecomputeSQL = `
INSERT INTO nft_custody (` + NftCustodyColumns + `)
` + NftLastEvents(anchored)
