package db

// The parts a principal plays in a transaction, stored as bits in principal_txs.roles.
const (
	roleSender           int16 = 1 << iota // origin (sender_address)
	roleSponsor                            // sponsor of a sponsored transaction
	roleRecipient                          // token-transfer recipient
	roleCalledContract                     // contract a contract call calls
	roleDeployedContract                   // contract a deploy creates
	roleAssetParty                         // sender or recipient of an STX, FT or NFT event
	roleLocked                             // locked_address of an stx_lock event
	roleBootData                           // boot data of "block 0", adopted by block 1 (adoptBlockZero)
)

// transferRolesSQL selects the principal_txs rows of transactions_with_transfers. It spells
// transferRoles (61) literally, as the predicate of principal_txs_transfers_idx does: PostgreSQL
// uses a partial index only for a query that repeats its predicate.
const transferRolesSQL = "roles & 61 <> 0"

// transferRoles are the roles that put a transaction on a principal's transactions_with_transfers
// list, as in the reference API: every role but sponsor and stx_lock.
const transferRoles = roleSender | roleRecipient | roleCalledContract | roleDeployedContract | roleAssetParty

// summaryRolesSQL selects the principal_txs rows of the address transaction summaries, as the
// reference API's v2 address transactions list them: every role but stx_lock (63), except that
// of the boot data adopted from "block 0" only asset event parties count (the reference's own
// list of a principal's transactions keeps those rows under block 0, where no canonical
// transaction matches them; its event tables follow them to block 1).
const summaryRolesSQL = "(roles & 32 <> 0 OR (roles & 31 <> 0 AND roles & 128 = 0))"

// principalRoles returns the roles of every principal taking part in the transaction.
func principalRoles(t *TxData) map[string]int16 {
	roles := map[string]int16{}
	add := func(p *string, role int16) {
		if p != nil && *p != "" {
			roles[*p] |= role
		}
	}
	add(&t.Tx.SenderAddress, roleSender)
	add(t.Tx.SponsorAddress, roleSponsor)
	add(t.Tx.TokenTransferRecipientAddress, roleRecipient)
	add(t.Tx.ContractCallContractID, roleCalledContract)
	add(t.Tx.SmartContractContractID, roleDeployedContract)
	for _, e := range t.StxEvents {
		add(e.Sender, roleAssetParty)
		add(e.Recipient, roleAssetParty)
	}
	for _, e := range t.FtEvents {
		add(e.Sender, roleAssetParty)
		add(e.Recipient, roleAssetParty)
	}
	for _, e := range t.NftEvents {
		add(e.Sender, roleAssetParty)
		add(e.Recipient, roleAssetParty)
	}
	for _, e := range t.StxLockEvents {
		add(&e.LockedAddress, roleLocked)
	}
	return roles
}
