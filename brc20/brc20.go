// Package brc20 holds the BRC-20 token rules: which inscriptions are deploys, mints and transfers,
// and what they do to token supplies and balances. It works on the inscription reveals and moves
// of one Bitcoin block at a time against a State it reads from and returns the writes as Changes;
// it knows no storage and no wire format.
//
// The rules are the canonical indexers' (layer1/BiS rule list); where Hiro's indexer observably
// differs, Hiro is followed, as the API reproduces Hiro's responses.
package brc20

import "math/big"

// Mainnet activation heights.
const (
	// ActivationHeight is the first block whose inscriptions can be BRC-20 operations.
	ActivationHeight = 779832
	// SelfMintActivationHeight is the first block where 5-byte self-mint tokens can be deployed.
	SelfMintActivationHeight = 837090
)

// Block is the inscription activity of one Bitcoin block, transactions in block order.
type Block struct {
	Height    int32
	Hash      string // hex, no 0x
	Timestamp int64  // header time, seconds
	Txs       []Tx
}

// Tx is one transaction's inscription activity.
type Tx struct {
	ID      string // hex, no 0x
	Index   int32  // position in the block
	Reveals []Reveal
	Moves   []Move
}

// Reveal is an inscription revealed by a transaction.
type Reveal struct {
	InscriptionID string
	Number        int64 // current (jubilee) inscription number
	ClassicNumber int64 // pre-jubilee number; negative for cursed inscriptions
	ContentType   string
	Content       []byte
	// Address owns the output the inscription lands on; "" when that output has no address
	// (fee, OP_RETURN, bare scripts).
	Address  string
	Parents  []string
	Sat      int64  // ordinal number of the inscribed sat
	Location string // satpoint after the reveal, "txid:vout:offset"
}

// Destination says where a move sends an inscription.
type Destination int

const (
	// Transferred to an output with an address.
	Transferred Destination = iota
	// SpentInFees: the inscription's sat went to the miner.
	SpentInFees
	// Burnt: sent to an output without an address (OP_RETURN and other scripts).
	Burnt
)

// Move is an inscribed sat moving in a transaction.
type Move struct {
	Sat         int64
	Destination Destination
	Address     string // receiver when Transferred
	Location    string // satpoint after the move
}

// Token is a deployed token. Amounts are integers scaled by 10^Decimals.
type Token struct {
	Ticker            string // lower case
	DisplayTicker     string // as deployed
	InscriptionID     string
	InscriptionNumber int64
	BlockHeight       int32
	BlockHash         string
	TxID              string
	TxIndex           int32
	Address           string
	Max               *big.Int
	Limit             *big.Int
	Decimals          int
	SelfMint          bool
	Minted            *big.Int
	TxCount           int64
	Holders           int64 // addresses with a positive total balance
	DeployTimestamp   int64 // milliseconds
}

// BalanceKey names one holder's balance of one token.
type BalanceKey struct {
	Ticker  string
	Address string
}

// Balance is a holder's available and transferable amounts; their sum is the total.
type Balance struct {
	Avail *big.Int
	Trans *big.Int
}

// Total returns available plus transferable.
func (b Balance) Total() *big.Int { return new(big.Int).Add(b.Avail, b.Trans) }

// Transferable is a valid transfer inscription that has not moved yet.
type Transferable struct {
	InscriptionID     string
	InscriptionNumber int64
	Sat               int64
	Ticker            string
	Address           string // inscriber, who sends the amount on the first move
	Amount            *big.Int
	BlockHeight       int32
	TxIndex           int32
}

// Operation kinds, as stored and listed in activity.
const (
	OpDeploy          = "deploy"
	OpMint            = "mint"
	OpTransfer        = "transfer"
	OpTransferSend    = "transfer_send"
	OpTransferReceive = "transfer_receive"
)

// Operation is one valid BRC-20 operation. A send of a transfer inscription yields two: the
// transfer_send on the sender (ToAddress = receiver) and the transfer_receive on the receiver.
type Operation struct {
	Kind              string
	InscriptionID     string
	InscriptionNumber int64
	Sat               int64
	Ticker            string
	BlockHeight       int32
	BlockHash         string
	TxID              string
	TxIndex           int32
	EventIndex        int32 // position among the block's operations
	Location          string
	Address           string
	ToAddress         *string
	Amount            *big.Int
	Timestamp         int64 // milliseconds
}
