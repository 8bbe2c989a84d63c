package ingest

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
)

// totalsMismatchSQL recomputes every principal's STX totals from the event tables, each sum
// on its own, and lists the principals whose maintained row differs.
const totalsMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
recv AS (SELECT recipient AS p, sum(amount) AS v FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
sent AS (SELECT sender AS p, sum(amount) AS v FROM stx_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
fees AS (SELECT p, sum(fee_rate) AS v FROM (
	SELECT sender_address AS p, fee_rate FROM txs WHERE NOT sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
	UNION ALL
	SELECT sponsor_address, fee_rate FROM txs WHERE sponsored AND canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)) f GROUP BY 1),
rewards AS (SELECT recipient AS p, sum(coinbase_amount + tx_fees_anchored + tx_fees_streamed_confirmed + tx_fees_streamed_produced) AS v
	FROM miner_rewards WHERE canonical AND mature_block_height <= (SELECT block_height FROM chain_tip) GROUP BY 1),
counts AS (SELECT principal AS p, count(*) AS v FROM principal_txs
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) GROUP BY 1),
everyone AS (SELECT p FROM recv UNION SELECT p FROM sent UNION SELECT p FROM fees UNION SELECT p FROM rewards
	UNION SELECT p FROM counts UNION SELECT principal FROM principal_stx_totals)
SELECT e.p FROM everyone e
LEFT JOIN principal_stx_totals t ON t.principal = e.p
LEFT JOIN recv ON recv.p = e.p LEFT JOIN sent ON sent.p = e.p LEFT JOIN fees ON fees.p = e.p
LEFT JOIN rewards ON rewards.p = e.p LEFT JOIN counts ON counts.p = e.p
WHERE e.p IS NOT NULL AND (
	coalesce(t.total_received, 0) <> coalesce(recv.v, 0) OR coalesce(t.total_sent, 0) <> coalesce(sent.v, 0)
	OR coalesce(t.total_fees_sent, 0) <> coalesce(fees.v, 0) OR coalesce(t.total_miner_rewards_received, 0) <> coalesce(rewards.v, 0)
	OR coalesce(t.tx_count, 0) <> coalesce(counts.v, 0))`

// checkTotals checks that the incrementally maintained principal_stx_totals of a replayed
// fixture (forks and microblocks included) equal a recomputation from scratch.
func checkTotals(t *testing.T, store *db.Store) {
	var bad []string
	if err := store.DB.NewRaw(totalsMismatchSQL).Scan(context.Background(), &bad); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%d principals with wrong totals, e.g. %v", len(bad), bad[:min(5, len(bad))])
	}
	if n := count(t, store, "SELECT count(*) FROM principal_stx_totals WHERE tx_count > 0"); n == 0 {
		t.Error("no principal has any transaction: the invariant checked nothing")
	}
}
