package resolvers

// The bounds and messages of the checks that the GraphQL arguments and the legacy REST
// parameters (package rest) share, as the reference API sets and words them.

// Largest pages of the listings.
const (
	// MaxBlocksPage bounds blocks(limit:), as the reference bounds /extended/v1/block.
	MaxBlocksPage = 30
	// MaxAccountTxsPage is the largest page of an account's transactions.
	MaxAccountTxsPage = 50
	// MaxEventsPage and MaxContractEventsPage bound the event listings.
	MaxEventsPage         = 100
	MaxContractEventsPage = 50
	// MaxFtBalancesPage bounds an address's fungible-token balances.
	MaxFtBalancesPage = 200
	// MaxEventLimit bounds a transaction's event window (the reference's event_limit).
	MaxEventLimit = 100
)

// Messages of the checks both make.
const (
	MsgUnanchoredAndUntil = "can't handle both 'unanchored=true' and 'until_block' in the same request"
	MsgBadBlockHeight     = "Unexpected integer value for block height path parameter"
	MsgUntilAndHeight     = "can't handle until_block and block_height in the same request"
	MsgNoAddressOrTxID    = "can not find 'address' or 'tx_id' in the request"
	MsgAddressAndTxID     = "can't handle both 'address' and 'tx_id' in the same request"
)
