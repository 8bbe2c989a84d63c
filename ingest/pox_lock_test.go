package ingest

import (
	"testing"

	"github.com/stxgraph/stxgraph/db"
)

func TestPatchPoxEvent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data      string
		locked, balance string
		unlock          int32
		wantLocked      string
		wantBalance     string
		wantUnlock      int32
	}{
		{"stack-stx", `{"lock_amount": "100", "unlock_burn_height": "140"}`, "0", "1000", 0, "100", "900", 140},
		{"delegate-stack-stx", `{"lock_amount": "7", "unlock_burn_height": "9"}`, "0", "10", 0, "7", "3", 9},
		{"stack-increase", `{"increase_by": "50", "total_locked": "150"}`, "100", "900", 140, "150", "850", 140},
		{"delegate-stack-increase", `{"increase_by": "1", "total_locked": "8"}`, "7", "3", 9, "8", "2", 9},
		{"stack-extend", `{"extend_count": "1", "unlock_burn_height": "160"}`, "150", "850", 140, "150", "850", 160},
		{"delegate-stack-extend", `{"unlock_burn_height": "20"}`, "8", "2", 9, "8", "2", 20},
		{"delegate-stx", `{"amount_ustx": "5", "unlock_burn_height": "300"}`, "0", "10", 0, "0", "10", 300},
		{"delegate-stx", `{"amount_ustx": "5", "unlock_burn_height": null}`, "0", "10", 0, "0", "10", 0},
		{"handle-unlock", `{"first_cycle_locked": "1"}`, "150", "850", 160, "150", "1000", 160},
		{"stack-aggregation-commit", `{"amount_ustx": "5"}`, "0", "10", 0, "0", "10", 0},
	}
	for _, c := range cases {
		e := &db.PoxEvent{Name: c.name, Data: []byte(c.data), Locked: c.locked, Balance: c.balance, BurnchainUnlockHeight: c.unlock}
		patchPoxEvent(e)
		if e.Locked != c.wantLocked || e.Balance != c.wantBalance || e.BurnchainUnlockHeight != c.wantUnlock {
			t.Errorf("%s %s: locked %s balance %s unlock %d, want %s %s %d", c.name, c.data,
				e.Locked, e.Balance, e.BurnchainUnlockHeight, c.wantLocked, c.wantBalance, c.wantUnlock)
		}
	}
}
