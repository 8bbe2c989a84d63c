package chainwrite

import (
	"github.com/stxgraph/stxgraph/db"
)

// eventCountsSQL adds the blocks' events, multiplied by ?1 (1 or -1), to the principals'
// counts (contract logs, kind 0, also to their own); prev are the counts before the statement.
var eventCountsSQL = `
WITH ev (principal, kind, tx_id, index_block_hash, microblock_hash, event_index, block_height, microblock_sequence, tx_index) AS (` +
	db.EventParties(inBlocks) + `
), n AS (
	SELECT principal, count(*) AS n, count(*) FILTER (WHERE kind = 0) AS logs FROM ev WHERE principal IS NOT NULL GROUP BY principal
), prev AS (
	SELECT c.principal, c.event_count, c.log_count FROM principal_event_counts c WHERE c.principal IN (SELECT principal FROM n)
), upd AS (
	INSERT INTO principal_event_counts AS c (principal, event_count, log_count) SELECT principal, ?1 * n, ?1 * logs FROM n
	ON CONFLICT (principal) DO UPDATE SET event_count = c.event_count + excluded.event_count, log_count = c.log_count + excluded.log_count
	RETURNING c.principal, c.event_count
)`

// eventPositionsAddSQL numbers the blocks' events after each principal's earlier ones, and its
// contract logs after its earlier logs.
var eventPositionsAddSQL = `
INSERT INTO principal_event_positions (principal, seq, kind, tx_id, index_block_hash, microblock_hash, event_index, log_seq)
SELECT ev.principal, coalesce(prev.event_count, 0) + row_number() OVER w,
	ev.kind, ev.tx_id, ev.index_block_hash, ev.microblock_hash, ev.event_index,
	CASE WHEN ev.kind = 0 THEN coalesce(prev.log_count, 0) + count(*) FILTER (WHERE ev.kind = 0) OVER w END
FROM ev LEFT JOIN prev USING (principal) WHERE ev.principal IS NOT NULL
WINDOW w AS (PARTITION BY ev.principal ORDER BY ` + db.EventPositionOrder + ` ROWS UNBOUNDED PRECEDING)
ON CONFLICT (principal, seq) DO UPDATE SET kind = excluded.kind, tx_id = excluded.tx_id,
	index_block_hash = excluded.index_block_hash, microblock_hash = excluded.microblock_hash, event_index = excluded.event_index,
	log_seq = excluded.log_seq`

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
