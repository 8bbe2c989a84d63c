package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// TestLockOperations checks the lock fields for the PoX operations the regtest fixtures lack.
// Each case adds one pox-4 event for a stacker of the out-of-order-multisig fixture (locked by
// stack-stx at height 9, extended at 19 to burn height 160; tip burn height 133) at height 25,
// as ingestion stores it: with the state after the operation (ingest.patchPoxEvent, tested in ingest).
func TestLockOperations(t *testing.T) {
	t.Parallel()
	const stacker = "ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0"
	type lock struct {
		Locked                string `json:"locked"`
		LockHeight            int    `json:"lock_height"`
		BurnchainLockHeight   int    `json:"burnchain_lock_height"`
		BurnchainUnlockHeight int    `json:"burnchain_unlock_height"`
		LockTxID              string `json:"lock_tx_id"`
	}
	cases := []struct {
		name, event, locked string
		unlock              int
		data                string
		want                lock
	}{
		{"stack-increase raises the locked amount", "stack-increase", "6375240000001000", 160,
			`{"increase_by": "1000", "total_locked": "6375240000001000"}`,
			lock{Locked: "6375240000001000", LockHeight: 25, BurnchainLockHeight: 127, BurnchainUnlockHeight: 160, LockTxID: "0x" + zeros}},
		{"delegate-stack-extend moves the unlock height", "delegate-stack-extend", "6375240000000000", 180,
			`{"unlock_burn_height": "180", "extend_count": "1"}`,
			lock{Locked: "6375240000000000", LockHeight: 25, BurnchainLockHeight: 127, BurnchainUnlockHeight: 180, LockTxID: "0x" + zeros}},
		{"delegate-stx by a stacker keeps the lock", "delegate-stx", "6375240000000000", 160,
			`{"amount_ustx": "5", "unlock_burn_height": null}`,
			lock{Locked: "6375240000000000", LockHeight: 25, BurnchainLockHeight: 127, BurnchainUnlockHeight: 160, LockTxID: "0x" + zeros}},
		{"handle-unlock below the burn height unlocks", "handle-unlock", "6375240000000000", 130,
			`{"first_cycle_locked": "1", "first_unlocked_cycle": "2"}`,
			lock{Locked: "0"}},
		{"an event whose unlock height has passed is skipped", "stack-increase", "6375240000000001", 120,
			`{"increase_by": "1", "total_locked": "6375240000000001"}`,
			// The print of height 25 no longer qualifies; the stack-extend of height 19 does.
			lock{Locked: "6375240000000000", LockHeight: 19, BurnchainLockHeight: 121, BurnchainUnlockHeight: 160,
				LockTxID: "0xb6f48d95c73ea2563f014a12768593007d3292157c5422cba0c83f275fa6ef6d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			store := replay(t, "regtest-env-pox-4-out-of-order-multisig-tx")
			_, err := store.DB.ExecContext(context.Background(), `INSERT INTO pox_events (tx_id, index_block_hash, event_index, tx_index,
					block_height, microblock_sequence, canonical, microblock_canonical, pox_version, name, stacker, locked, balance,
					burnchain_unlock_height, data)
				SELECT '\x`+zeros+`', index_block_hash, 0, 1, 25, 2147483647, true, true, 4, ?, ?, ?, 0, ?, ?::jsonb
				FROM blocks WHERE canonical AND block_height = 25`, c.event, stacker, c.locked, c.unlock, c.data)
			if err != nil {
				t.Fatal(err)
			}
			srv := serve(t, store, rest.Options{ServerVersion: "test"})
			resp, err := http.Get(srv.URL + "/extended/v1/address/" + stacker + "/stx")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got lock
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, %v", resp.StatusCode, err)
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
