package db

import (
	"fmt"
	"strings"
)

// principal_event_positions numbers, per principal, the canonical anchored events it is a party
// of (the tx/events listing by address), and principal_event_counts counts them. addTotals keeps
// them with the totals: a block's events are numbered after the principal's earlier ones when the
// block starts counting, and dropped when it stops (blocks stop counting from the top).

// eventParties are the events of the blocks that blocks selects (see inBlocks) with each
// principal they list them under, one branch per kind (its index in eventTables) and principal
// column; an event whose sender is its recipient is listed once.
func eventParties(blocks string) string {
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

// eventPositionOrder orders a principal's events in its list.
const eventPositionOrder = "block_height, microblock_sequence, tx_index, event_index, kind, tx_id"

// eventCountsSQL adds the blocks' events, multiplied by ?1 (1 or -1), to the principals'
// counts; prev are the counts before the statement.
var eventCountsSQL = `
WITH ev (principal, kind, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index) AS (` +
	eventParties(inBlocks) + `
), n AS (
	SELECT principal, count(*) AS n FROM ev WHERE principal IS NOT NULL GROUP BY principal
), prev AS (
	SELECT c.principal, c.event_count FROM principal_event_counts c WHERE c.principal IN (SELECT principal FROM n)
), upd AS (
	INSERT INTO principal_event_counts AS c (principal, event_count) SELECT principal, ?1 * n FROM n
	ON CONFLICT (principal) DO UPDATE SET event_count = c.event_count + excluded.event_count
	RETURNING c.principal, c.event_count
)`

// eventPositionsAddSQL numbers the blocks' events after each principal's earlier ones.
var eventPositionsAddSQL = `
INSERT INTO principal_event_positions (principal, seq, kind, tx_id, index_block_hash, microblock_hash, event_index)
SELECT ev.principal, coalesce(prev.event_count, 0) + row_number() OVER (PARTITION BY ev.principal ORDER BY ` + eventPositionOrder + `),
	ev.kind, ev.tx_id, ev.index_block_hash, ev.microblock_hash, ev.event_index
FROM ev LEFT JOIN prev USING (principal) WHERE ev.principal IS NOT NULL
ON CONFLICT (principal, seq) DO UPDATE SET kind = excluded.kind, tx_id = excluded.tx_id,
	index_block_hash = excluded.index_block_hash, microblock_hash = excluded.microblock_hash, event_index = excluded.event_index`

// eventPositionsSubtractSQL drops the positions past each principal's new count.
const eventPositionsSubtractSQL = `
DELETE FROM principal_event_positions x USING upd WHERE x.principal = upd.principal AND x.seq > upd.event_count`

// addEventPositions adds (sign 1) or removes (sign -1) the blocks' events in their principals'
// event lists.
func (w *Writer) addEventPositions(blocks [][]byte, sign int) {
	if sign > 0 {
		w.exec(eventCountsSQL+eventPositionsAddSQL, byteArray(blocks), sign)
	} else {
		w.exec(eventCountsSQL+eventPositionsSubtractSQL, byteArray(blocks), sign)
	}
}
