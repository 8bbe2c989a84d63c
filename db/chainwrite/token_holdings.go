package chainwrite

import (
	"github.com/stxgraph/stxgraph/db"
)

// ftBalancesAddSQL adds the blocks' token amounts, multiplied by ?1 (1 or -1), to the balances.
var ftBalancesAddSQL = `
WITH d (principal, asset_identifier, amount) AS (` + db.FtBalanceRows(inBlocks) + `
)
INSERT INTO ft_balances AS b (principal, asset_identifier, balance)
SELECT principal, asset_identifier, ?1 * sum(amount) FROM d GROUP BY principal, asset_identifier
ON CONFLICT (principal, asset_identifier) DO UPDATE SET balance = b.balance + excluded.balance`

// nftCustodyAddSQL hands each token the blocks move to its newest holder in them: the blocks
// start counting above every counted one (see addTotals), so their events are the newest.
var nftCustodyAddSQL = `
INSERT INTO nft_custody AS c (` + db.NftCustodyColumns + `)
` + db.NftLastEvents(inBlocks) + `
ON CONFLICT (asset_identifier, value) DO UPDATE SET recipient = excluded.recipient, tx_id = excluded.tx_id,
	index_block_hash = excluded.index_block_hash, microblock_hash = excluded.microblock_hash,
	block_height = excluded.block_height, microblock_sequence = excluded.microblock_sequence,
	tx_index = excluded.tx_index, event_index = excluded.event_index`

// nftCustodySubtractSQL gives each token the blocks move back to the holder of its newest
// counted event outside them (the blocks still count while it runs), and forgets the tokens
// that have none: those minted in the blocks.
var nftCustodySubtractSQL = `
WITH moved AS (
	SELECT DISTINCT asset_identifier, value FROM nft_events WHERE ` + inBlocks + ` AND canonical AND microblock_canonical
), last AS (
	SELECT m.asset_identifier, m.value, e.recipient, e.tx_id, e.index_block_hash, e.microblock_hash, e.block_height,
		e.microblock_sequence, e.tx_index, e.event_index
	FROM moved m LEFT JOIN LATERAL (
		SELECT * FROM nft_events e
		WHERE e.asset_identifier = m.asset_identifier AND e.value = m.value AND e.canonical AND e.microblock_canonical
			AND e.index_block_hash <> '' AND NOT e.index_block_hash = ANY(?0)
		ORDER BY e.block_height DESC, e.microblock_sequence DESC, e.tx_index DESC, e.event_index DESC LIMIT 1
	) e ON true
), gone AS (
	DELETE FROM nft_custody c USING last l
	WHERE c.asset_identifier = l.asset_identifier AND c.value = l.value AND l.tx_id IS NULL
	RETURNING 1
)
UPDATE nft_custody c SET recipient = l.recipient, tx_id = l.tx_id, index_block_hash = l.index_block_hash,
	microblock_hash = l.microblock_hash, block_height = l.block_height, microblock_sequence = l.microblock_sequence,
	tx_index = l.tx_index, event_index = l.event_index
FROM last l WHERE c.asset_identifier = l.asset_identifier AND c.value = l.value AND l.tx_id IS NOT NULL`

// addTokenHoldings adds (sign 1) or takes back (sign -1) the blocks' token events in the FT
// balances and NFT custody.
func (w *Writer) addTokenHoldings(blocks [][]byte, sign int) {
	w.exec(ftBalancesAddSQL, byteArray(blocks), sign)
	if sign > 0 {
		w.exec(nftCustodyAddSQL, byteArray(blocks))
	} else {
		w.exec(nftCustodySubtractSQL, byteArray(blocks))
		w.seesNewRows = true // it reads the counted events of every other block
	}
}
