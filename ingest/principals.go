package ingest

import (
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/stacks/roles"
)

// principalRoles lists everyone who takes part in a transaction, once each in the order first
// named, with the roles they play in it (the principal_txs rows).
func principalRoles(d *chainwrite.TxData) []roles.Principal {
	index := map[string]int{}
	var out []roles.Principal
	add := func(p *string, role roles.Set) {
		if p == nil || *p == "" {
			return
		}
		if i, ok := index[*p]; ok {
			out[i].Roles |= role
			return
		}
		index[*p] = len(out)
		out = append(out, roles.Principal{Principal: *p, Roles: role})
	}
	t := d.Tx
	add(&t.SenderAddress, roles.Sender)
	add(t.SponsorAddress, roles.Sponsor)
	add(t.TokenTransferRecipientAddress, roles.Recipient)
	add(t.ContractCallContractID, roles.CalledContract)
	add(t.SmartContractContractID, roles.DeployedContract)
	for _, e := range d.StxEvents {
		add(e.Sender, roles.AssetParty)
		add(e.Recipient, roles.AssetParty)
	}
	for _, e := range d.FtEvents {
		add(e.Sender, roles.AssetParty)
		add(e.Recipient, roles.AssetParty)
	}
	for _, e := range d.NftEvents {
		add(e.Sender, roles.AssetParty)
		add(e.Recipient, roles.AssetParty)
	}
	for _, e := range d.StxLockEvents {
		add(&e.LockedAddress, roles.Locked)
	}
	return out
}
