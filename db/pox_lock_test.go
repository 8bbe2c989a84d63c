package db

import "testing"

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
		e := &PoxEvent{Name: c.name, Data: []byte(c.data), Locked: c.locked, Balance: c.balance, BurnchainUnlockHeight: c.unlock}
		patchPoxEvent(e)
		if e.Locked != c.wantLocked || e.Balance != c.wantBalance || e.BurnchainUnlockHeight != c.wantUnlock {
			t.Errorf("%s %s: locked %s balance %s unlock %d, want %s %s %d", c.name, c.data,
				e.Locked, e.Balance, e.BurnchainUnlockHeight, c.wantLocked, c.wantBalance, c.wantUnlock)
		}
	}
}

func TestTransferRoles(t *testing.T) {
	t.Parallel()
	if transferRolesSQL != "roles & 61 <> 0" || transferRoles != 61 {
		t.Fatalf("transferRoles is %d: update transferRolesSQL and principal_txs_transfers_idx", transferRoles)
	}
	sponsor, recipient := "SP2", "SP3"
	roles := principalRoles(&TxData{
		Tx:            &Tx{TxFields: TxFields{SenderAddress: "SP1", SponsorAddress: &sponsor}},
		StxEvents:     []*StxEvent{{Sender: &sponsor, Recipient: &recipient}},
		StxLockEvents: []*StxLockEvent{{LockedAddress: "SP4"}},
	})
	want := map[string]int16{"SP1": roleSender, "SP2": roleSponsor | roleAssetParty, "SP3": roleAssetParty, "SP4": roleLocked}
	for p, r := range want {
		if roles[p] != r {
			t.Errorf("%s: roles %b, want %b", p, roles[p], r)
		}
	}
	if roles["SP4"]&transferRoles != 0 || roles["SP2"]&transferRoles == 0 {
		t.Error("a lock-only participant must not be listed; a sponsor with a transfer must")
	}
}
