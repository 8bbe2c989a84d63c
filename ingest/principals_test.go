package ingest

import (
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/stacks/roles"
)

func TestPrincipalRoles(t *testing.T) {
	t.Parallel()
	sponsor, recipient, contract := "SP2", "SP3", "SP1.token"
	got := principalRoles(&chainwrite.TxData{
		Tx:            &db.Tx{TxFields: db.TxFields{SenderAddress: "SP1", SponsorAddress: &sponsor, ContractCallContractID: &contract}},
		StxEvents:     []*db.StxEvent{{Sender: &sponsor, Recipient: &recipient}},
		FtEvents:      []*db.FtEvent{{Sender: &recipient}},
		StxLockEvents: []*db.StxLockEvent{{LockedAddress: "SP4"}},
	})
	want := []roles.Principal{
		{Principal: "SP1", Roles: roles.Sender},
		{Principal: "SP2", Roles: roles.Sponsor | roles.AssetParty},
		{Principal: "SP1.token", Roles: roles.CalledContract},
		{Principal: "SP3", Roles: roles.AssetParty},
		{Principal: "SP4", Roles: roles.Locked},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("principalRoles = %+v, want %+v", got, want)
	}
	if got[4].Roles&roles.Transfer != 0 || got[1].Roles&roles.Transfer == 0 {
		t.Error("a lock-only participant must not be listed; a sponsor with a transfer must")
	}
}
