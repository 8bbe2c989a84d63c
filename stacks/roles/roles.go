// Package roles names the parts a principal plays in a Stacks transaction: sender, sponsor,
// token-transfer recipient, called or deployed contract, party to an asset event, holder of a
// lock. A principal's roles in one transaction are one Set, stored as the bits of
// principal_txs.roles; the account lists of the API select transactions by these bits.
package roles

// Set is the roles a principal plays in one transaction, one bit each.
type Set int16

// The roles; their bit values are stored, so they never change.
const (
	Sender           Set = 1 << iota // origin (sender_address)
	Sponsor                          // sponsor of a sponsored transaction
	Recipient                        // token-transfer recipient
	CalledContract                   // contract a contract call calls
	DeployedContract                 // contract a deploy creates
	AssetParty                       // sender or recipient of an STX, FT or NFT event
	Locked                           // locked_address of an stx_lock event
	BootData                         // boot data of "block 0", adopted by block 1
)

// Transfer are the roles that put a transaction on a principal's transactions_with_transfers
// list, as in the reference API: every role but sponsor and stx_lock.
const Transfer = Sender | Recipient | CalledContract | DeployedContract | AssetParty

// Principal is one principal taking part in a transaction, with its roles there.
type Principal struct {
	Principal string
	Roles     Set
}
