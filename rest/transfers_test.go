package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// TestTransfersListRoles checks that transactions_with_transfers lists the transactions in which
// the principal has a transfer role, as the reference does, and not those it only sponsors or in
// which it only has STX locked (the fixtures have neither case, so rows are added as ingestion
// writes them: one sponsor-only, one lock-only, one as sender, with their list positions and the
// principal's counters).
func TestTransfersListRoles(t *testing.T) {
	t.Parallel()
	const principal = "ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH" // no history in mocknet
	store := replay(t, "mocknet")
	_, err := store.DB.ExecContext(context.Background(), `
		WITH t AS (SELECT tx_id, index_block_hash, microblock_hash, block_height, microblock_sequence, tx_index,
				row_number() OVER (ORDER BY block_height, tx_index) AS n
			FROM txs WHERE canonical AND microblock_canonical AND index_block_hash <> '' LIMIT 3),
		p AS (INSERT INTO principal_txs (principal, tx_id, index_block_hash, microblock_hash, block_height, microblock_sequence,
				tx_index, canonical, microblock_canonical, roles)
			SELECT ?, tx_id, index_block_hash, microblock_hash, block_height, microblock_sequence, tx_index, true, true,
				CASE n WHEN 1 THEN 2 WHEN 2 THEN 64 ELSE 1 END FROM t RETURNING 1),
		x AS (INSERT INTO principal_tx_positions (principal, seq, tseq, block_height, tx_id, index_block_hash, microblock_hash)
			SELECT ?, n, CASE WHEN n = 3 THEN 1 END, block_height, tx_id, index_block_hash, microblock_hash FROM t RETURNING 1),
		c AS (INSERT INTO principal_stx_checkpoints (principal, block_height, total_received, total_sent, total_fees_sent,
				total_miner_rewards_received, tx_count, tx_count_all)
			SELECT ?, max(block_height), 0, 0, 0, 0, 1, 3 FROM t RETURNING 1)
		INSERT INTO principal_stx_totals (principal, tx_count, tx_count_all) VALUES (?, 1, 3)`, principal, principal, principal, principal)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, store, rest.Options{ServerVersion: "test"})
	for _, q := range []string{"", "?unanchored=true", "?until_block=100"} {
		resp, err := http.Get(srv.URL + "/extended/v1/address/" + principal + "/transactions_with_transfers" + q)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Total   int               `json:"total"`
			Results []json.RawMessage `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, %v", q, resp.StatusCode, err)
		}
		if page.Total != 1 || len(page.Results) != 1 {
			t.Errorf("%s: total %d, %d results; want the sender's transaction only", q, page.Total, len(page.Results))
		}
	}
}
