package db

import (
	"fmt"
	"testing"

	"github.com/stxgraph/stxgraph/stacks/roles"
)

func TestRolesSQL(t *testing.T) {
	t.Parallel()
	transfer := fmt.Sprintf("roles & %d <> 0", roles.Transfer)
	if TransferRolesSQL != transfer {
		t.Errorf("TransferRolesSQL is %q, want %q (and update principal_txs_transfers_idx)", TransferRolesSQL, transfer)
	}
	beforeLocked := roles.Sender | roles.Sponsor | roles.Recipient | roles.CalledContract | roles.DeployedContract
	summary := fmt.Sprintf("(roles & %d <> 0 OR (roles & %d <> 0 AND roles & %d = 0))", roles.AssetParty, beforeLocked, roles.BootData)
	if SummaryRolesSQL != summary {
		t.Errorf("SummaryRolesSQL is %q, want %q", SummaryRolesSQL, summary)
	}
}
