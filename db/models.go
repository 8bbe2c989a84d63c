package db

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Amounts (u128 micro-STX, token amounts, u64 fees and nonces) are carried as decimal strings
// and stored as numeric: exact, and already in the form the APIs render.

// ChainTip is the single-row state of the canonical tip.
type ChainTip struct {
	bun.BaseModel `bun:"table:chain_tip"`

	ID                 bool      `bun:"id,pk"`
	BlockHeight        int32     `bun:"block_height"`
	BlockHash          []byte    `bun:"block_hash"`
	IndexBlockHash     []byte    `bun:"index_block_hash"`
	BurnBlockHeight    int32     `bun:"burn_block_height"`
	MicroblockHash     []byte    `bun:"microblock_hash"`
	MicroblockSequence *int32    `bun:"microblock_sequence"`
	MempoolUpdatedAt   time.Time `bun:"mempool_updated_at"`
}

// PoxState holds the forced-unlock burn heights of each PoX version (0 = not set).
type PoxState struct {
	bun.BaseModel `bun:"table:pox_state"`

	ID                bool  `bun:"id,pk"`
	PoxV1UnlockHeight int32 `bun:"pox_v1_unlock_height"`
	PoxV2UnlockHeight int32 `bun:"pox_v2_unlock_height"`
	PoxV3UnlockHeight int32 `bun:"pox_v3_unlock_height"`
	PoxV4UnlockHeight int32 `bun:"pox_v4_unlock_height"`
}

// BurnBlock is a Bitcoin block as /new_burn_block reports it.
type BurnBlock struct {
	bun.BaseModel `bun:"table:burn_blocks"`

	BurnBlockHash       []byte `bun:"burn_block_hash,pk"`
	BurnBlockHeight     int32  `bun:"burn_block_height"`
	BurnAmount          string `bun:"burn_amount"`
	ConsensusHash       []byte `bun:"consensus_hash"`
	ParentBurnBlockHash []byte `bun:"parent_burn_block_hash"`
	Canonical           bool   `bun:"canonical"`
}

// BurnchainReward is one PoX reward paid in a burn block.
type BurnchainReward struct {
	bun.BaseModel `bun:"table:burnchain_rewards"`

	BurnBlockHash   []byte `bun:"burn_block_hash,pk"`
	BurnBlockHeight int32  `bun:"burn_block_height"`
	RewardIndex     int32  `bun:"reward_index,pk"`
	Recipient       string `bun:"recipient"`
	Amount          string `bun:"amount"`
	Canonical       bool   `bun:"canonical"`
}

// RewardSlotHolder is one PoX reward slot of a burn block.
type RewardSlotHolder struct {
	bun.BaseModel `bun:"table:reward_slot_holders"`

	BurnBlockHash   []byte `bun:"burn_block_hash,pk"`
	BurnBlockHeight int32  `bun:"burn_block_height"`
	SlotIndex       int32  `bun:"slot_index,pk"`
	Address         string `bun:"address"`
	Canonical       bool   `bun:"canonical"`
}

// ExecutionCost is the Clarity cost of a transaction or block.
type ExecutionCost struct {
	ReadCount   int64 `bun:"execution_cost_read_count"`
	ReadLength  int64 `bun:"execution_cost_read_length"`
	Runtime     int64 `bun:"execution_cost_runtime"`
	WriteCount  int64 `bun:"execution_cost_write_count"`
	WriteLength int64 `bun:"execution_cost_write_length"`
}

// Block is a Stacks anchor block.
type Block struct {
	bun.BaseModel `bun:"table:blocks"`

	IndexBlockHash           []byte   `bun:"index_block_hash,pk"`
	BlockHash                []byte   `bun:"block_hash"`
	BlockHeight              int32    `bun:"block_height"`
	ParentIndexBlockHash     []byte   `bun:"parent_index_block_hash"`
	ParentBlockHash          []byte   `bun:"parent_block_hash"`
	ParentMicroblockHash     []byte   `bun:"parent_microblock_hash"`
	ParentMicroblockSequence int32    `bun:"parent_microblock_sequence"`
	BurnBlockHash            []byte   `bun:"burn_block_hash"`
	BurnBlockHeight          int32    `bun:"burn_block_height"`
	BurnBlockTime            int64    `bun:"burn_block_time"`
	ParentBurnBlockHash      []byte   `bun:"parent_burn_block_hash"`
	ParentBurnBlockHeight    int32    `bun:"parent_burn_block_height"`
	ParentBurnBlockTime      int64    `bun:"parent_burn_block_time"`
	BlockTime                int64    `bun:"block_time"`
	MinerTxid                []byte   `bun:"miner_txid"`
	TenureHeight             *int32   `bun:"tenure_height"`
	SignerBitvec             *string  `bun:"signer_bitvec"`
	SignerSignatures         [][]byte `bun:"signer_signatures,array"`
	ConsensusHash            []byte   `bun:"consensus_hash"`
	TxTotalSize              int32    `bun:"tx_total_size"`
	TxCount                  int32    `bun:"tx_count"`
	ExecutionCost            `bun:"extend"`
	Canonical                bool `bun:"canonical"`
}

// Microblock is a pre-Nakamoto microblock; IndexBlockHash is empty until an anchor block
// confirms (or orphans) it.
type Microblock struct {
	bun.BaseModel `bun:"table:microblocks"`

	MicroblockHash        []byte    `bun:"microblock_hash,pk"`
	MicroblockSequence    int32     `bun:"microblock_sequence"`
	MicroblockParentHash  []byte    `bun:"microblock_parent_hash"`
	ParentIndexBlockHash  []byte    `bun:"parent_index_block_hash"`
	IndexBlockHash        []byte    `bun:"index_block_hash,pk"`
	BlockHash             []byte    `bun:"block_hash"`
	BlockHeight           int32     `bun:"block_height"`
	ParentBlockHeight     int32     `bun:"parent_block_height"`
	ParentBlockHash       []byte    `bun:"parent_block_hash"`
	ParentBurnBlockHash   []byte    `bun:"parent_burn_block_hash"`
	ParentBurnBlockHeight int32     `bun:"parent_burn_block_height"`
	ParentBurnBlockTime   int64     `bun:"parent_burn_block_time"`
	ReceiveTime           time.Time `bun:"receive_time"`
	Canonical             bool      `bun:"canonical"`
	MicroblockCanonical   bool      `bun:"microblock_canonical"`
}

// TxFields are the columns derived from a transaction's bytes, shared by mined and mempool rows.
type TxFields struct {
	RawTx                         []byte  `bun:"raw_tx"`
	TypeID                        int16   `bun:"type_id"`
	Nonce                         string  `bun:"nonce"`
	FeeRate                       string  `bun:"fee_rate"`
	SenderAddress                 string  `bun:"sender_address"`
	Sponsored                     bool    `bun:"sponsored"`
	SponsorAddress                *string `bun:"sponsor_address"`
	SponsorNonce                  *string `bun:"sponsor_nonce"`
	AnchorMode                    int16   `bun:"anchor_mode"`
	PostConditionMode             int16   `bun:"post_condition_mode"`
	TokenTransferRecipientAddress *string `bun:"token_transfer_recipient_address"`
	TokenTransferAmount           *string `bun:"token_transfer_amount"`
	SmartContractContractID       *string `bun:"smart_contract_contract_id"`
	ContractCallContractID        *string `bun:"contract_call_contract_id"`
	ContractCallFunctionName      *string `bun:"contract_call_function_name"`
}

// Sender is the account that signed the transaction (read from the row, so GraphQL resolves it
// inline).
func (f *TxFields) Sender() *Account { return &Account{Principal: f.SenderAddress} }

// Sponsor is the account that paid the fee of a sponsored transaction, or nil.
func (f *TxFields) Sponsor() *Account {
	if f.SponsorAddress == nil {
		return nil
	}
	return &Account{Principal: *f.SponsorAddress}
}

// Tx is a mined transaction (anchored, or confirmed in a microblock).
type Tx struct {
	bun.BaseModel `bun:"table:txs"`

	TxID                 []byte  `bun:"tx_id,pk"`
	IndexBlockHash       []byte  `bun:"index_block_hash,pk"`
	MicroblockHash       []byte  `bun:"microblock_hash,pk"`
	TxIndex              int32   `bun:"tx_index"`
	Status               int16   `bun:"status"`
	RawResult            []byte  `bun:"raw_result"`
	VMError              *string `bun:"vm_error"`
	Canonical            bool    `bun:"canonical"`
	MicroblockCanonical  bool    `bun:"microblock_canonical"`
	MicroblockSequence   int32   `bun:"microblock_sequence"`
	BlockHash            []byte  `bun:"block_hash"`
	BlockHeight          int32   `bun:"block_height"`
	BlockTime            int64   `bun:"block_time"`
	ParentIndexBlockHash []byte  `bun:"parent_index_block_hash"`
	ParentBlockHash      []byte  `bun:"parent_block_hash"`
	BurnBlockHeight      int32   `bun:"burn_block_height"`
	BurnBlockTime        int64   `bun:"burn_block_time"`
	ParentBurnBlockTime  int64   `bun:"parent_burn_block_time"`
	CoinbaseAltRecipient *string `bun:"coinbase_alt_recipient"`
	EventCount           int32   `bun:"event_count"`
	// EventKinds are the kinds of the transaction's events, as ingestion recorded them; none for
	// a row stored before they were recorded (see KindsOfEvents).
	EventKinds    EventKinds `bun:"event_kinds"`
	TxFields      `bun:"extend"`
	ExecutionCost `bun:"extend"`
}

// MempoolTx is a transaction the node has accepted into (or dropped from) its mempool.
type MempoolTx struct {
	bun.BaseModel `bun:"table:mempool_txs"`

	TxID               []byte `bun:"tx_id,pk"`
	Status             int16  `bun:"status"`
	Pruned             bool   `bun:"pruned"`
	ReplacedByTxID     []byte `bun:"replaced_by_tx_id"`
	ReceiptTime        int64  `bun:"receipt_time"`
	ReceiptBlockHeight int32  `bun:"receipt_block_height"`
	TxFields           `bun:"extend"`
}

// Transaction statuses as the reference stores them.
const (
	TxStatusSuccess                  int16 = 1
	TxStatusAbortByResponse          int16 = -1
	TxStatusAbortByPostCondition     int16 = -2
	TxStatusProblematicSkipped       int16 = -3
	TxStatusPending                  int16 = 0
	TxStatusDroppedReplaceByFee      int16 = -10
	TxStatusDroppedReplaceAcrossFork int16 = -11
	TxStatusDroppedTooExpensive      int16 = -12
	TxStatusDroppedStaleGC           int16 = -13
	TxStatusDroppedAPIGC             int16 = -14
	TxStatusDroppedProblematic       int16 = -15
)

// EventPosition places an event in the chain; event order is
// (block_height, microblock_sequence, tx_index, event_index).
type EventPosition struct {
	TxID                []byte `bun:"tx_id,pk"`
	IndexBlockHash      []byte `bun:"index_block_hash,pk"`
	MicroblockHash      []byte `bun:"microblock_hash,pk"`
	EventIndex          int32  `bun:"event_index,pk"`
	TxIndex             int32  `bun:"tx_index"`
	BlockHeight         int32  `bun:"block_height"`
	MicroblockSequence  int32  `bun:"microblock_sequence"`
	Canonical           bool   `bun:"canonical"`
	MicroblockCanonical bool   `bun:"microblock_canonical"`
}

// Asset event types.
const (
	AssetEventTransfer int16 = 1
	AssetEventMint     int16 = 2
	AssetEventBurn     int16 = 3
)

// Event is any of the five event kinds.
type Event interface{ Position() *EventPosition }

// StxEvent is an STX transfer, mint or burn.
type StxEvent struct {
	bun.BaseModel `bun:"table:stx_events"`
	EventPosition `bun:"extend"`

	AssetEventTypeID int16   `bun:"asset_event_type_id"`
	Sender           *string `bun:"sender"`
	Recipient        *string `bun:"recipient"`
	Amount           string  `bun:"amount"`
	Memo             []byte  `bun:"memo"`
}

// FtEvent is a fungible-token transfer, mint or burn.
type FtEvent struct {
	bun.BaseModel `bun:"table:ft_events"`
	EventPosition `bun:"extend"`

	AssetEventTypeID int16   `bun:"asset_event_type_id"`
	AssetIdentifier  string  `bun:"asset_identifier"`
	Sender           *string `bun:"sender"`
	Recipient        *string `bun:"recipient"`
	Amount           string  `bun:"amount"`
}

// NftEvent is a non-fungible-token transfer, mint or burn; Value is the serialized Clarity value.
type NftEvent struct {
	bun.BaseModel `bun:"table:nft_events"`
	EventPosition `bun:"extend"`

	AssetEventTypeID int16   `bun:"asset_event_type_id"`
	AssetIdentifier  string  `bun:"asset_identifier"`
	Sender           *string `bun:"sender"`
	Recipient        *string `bun:"recipient"`
	Value            []byte  `bun:"value"`
}

// ContractLog is a print event of a contract; Value is the serialized Clarity value.
type ContractLog struct {
	bun.BaseModel `bun:"table:contract_logs"`
	EventPosition `bun:"extend"`

	ContractIdentifier string `bun:"contract_identifier"`
	Topic              string `bun:"topic"`
	Value              []byte `bun:"value"`
}

// StxLockEvent is a PoX lock of STX until a burn height.
type StxLockEvent struct {
	bun.BaseModel `bun:"table:stx_lock_events"`
	EventPosition `bun:"extend"`

	LockedAmount  string `bun:"locked_amount"`
	UnlockHeight  int32  `bun:"unlock_height"`
	LockedAddress string `bun:"locked_address"`
	ContractName  string `bun:"contract_name"`
}

// PoxEvent is a pox-2/3/4 print event decoded into what the lock computation needs.
type PoxEvent struct {
	bun.BaseModel `bun:"table:pox_events"`
	EventPosition `bun:"extend"`

	PoxVersion            int16           `bun:"pox_version"`
	Name                  string          `bun:"name"`
	Stacker               string          `bun:"stacker"`
	Locked                string          `bun:"locked"`
	Balance               string          `bun:"balance"`
	BurnchainUnlockHeight int32           `bun:"burnchain_unlock_height"`
	Data                  json.RawMessage `bun:"data,type:jsonb"`
}

func (e *StxEvent) Position() *EventPosition     { return &e.EventPosition }
func (e *FtEvent) Position() *EventPosition      { return &e.EventPosition }
func (e *NftEvent) Position() *EventPosition     { return &e.EventPosition }
func (e *ContractLog) Position() *EventPosition  { return &e.EventPosition }
func (e *StxLockEvent) Position() *EventPosition { return &e.EventPosition }

// MinerReward is a matured block reward paid to a miner, keyed to the block that matured it.
type MinerReward struct {
	bun.BaseModel `bun:"table:miner_rewards"`

	IndexBlockHash          []byte  `bun:"index_block_hash,pk"`
	BlockHash               []byte  `bun:"block_hash"`
	FromIndexBlockHash      []byte  `bun:"from_index_block_hash,pk"`
	MatureBlockHeight       int32   `bun:"mature_block_height"`
	Canonical               bool    `bun:"canonical"`
	Recipient               string  `bun:"recipient,pk"`
	MinerAddress            *string `bun:"miner_address"`
	CoinbaseAmount          string  `bun:"coinbase_amount"`
	TxFeesAnchored          string  `bun:"tx_fees_anchored"`
	TxFeesStreamedConfirmed string  `bun:"tx_fees_streamed_confirmed"`
	TxFeesStreamedProduced  string  `bun:"tx_fees_streamed_produced"`
	// RewardIndex is the entry's position in the block's list of matured rewards: one block can
	// mature several entries for one recipient from one parent block.
	RewardIndex int16 `bun:"reward_index,pk"`
}

// SmartContract is a deployed contract with its source and ABI.
type SmartContract struct {
	bun.BaseModel `bun:"table:smart_contracts"`

	ContractID          string          `bun:"contract_id,pk"`
	TxID                []byte          `bun:"tx_id,pk"`
	IndexBlockHash      []byte          `bun:"index_block_hash,pk"`
	MicroblockHash      []byte          `bun:"microblock_hash,pk"`
	BlockHeight         int32           `bun:"block_height"`
	Canonical           bool            `bun:"canonical"`
	MicroblockCanonical bool            `bun:"microblock_canonical"`
	ClarityVersion      *int16          `bun:"clarity_version"`
	SourceCode          string          `bun:"source_code"`
	ABI                 json.RawMessage `bun:"abi,type:jsonb"`
}

// PrincipalTx records that a principal took part in a transaction.
type PrincipalTx struct {
	bun.BaseModel `bun:"table:principal_txs"`

	Principal           string `bun:"principal,pk"`
	TxID                []byte `bun:"tx_id,pk"`
	IndexBlockHash      []byte `bun:"index_block_hash,pk"`
	MicroblockHash      []byte `bun:"microblock_hash,pk"`
	BlockHeight         int32  `bun:"block_height"`
	MicroblockSequence  int32  `bun:"microblock_sequence"`
	TxIndex             int32  `bun:"tx_index"`
	Canonical           bool   `bun:"canonical"`
	MicroblockCanonical bool   `bun:"microblock_canonical"`
	// Roles are the parts the principal plays in the transaction, a roles.Set (stacks/roles).
	Roles int16 `bun:"roles"`
}

// PrincipalStxTotals are the running STX totals of a principal over canonical anchored data.
type PrincipalStxTotals struct {
	bun.BaseModel `bun:"table:principal_stx_totals"`

	Principal                 string `bun:"principal,pk"`
	TotalReceived             string `bun:"total_received"`
	TotalSent                 string `bun:"total_sent"`
	TotalFeesSent             string `bun:"total_fees_sent"`
	TotalMinerRewardsReceived string `bun:"total_miner_rewards_received"`
	// TxCount counts the transactions listed by transactions_with_transfers (roles & 61 <> 0).
	TxCount int64 `bun:"tx_count"`
}

// EventObserverRequest is one message the stacks-node posted, kept for export and replay.
type EventObserverRequest struct {
	bun.BaseModel `bun:"table:event_observer_requests"`

	ID               int64           `bun:"id,pk,autoincrement"`
	ReceiveTimestamp time.Time       `bun:"receive_timestamp"`
	EventPath        string          `bun:"event_path"`
	Payload          json.RawMessage `bun:"payload,type:jsonb"`
}

// Brc20Token is a deployed BRC-20 token; amounts are integers scaled by 10^Decimals.
type Brc20Token struct {
	bun.BaseModel `bun:"table:brc20_tokens"`

	Ticker            string `bun:"ticker,pk"`
	DisplayTicker     string `bun:"display_ticker"`
	InscriptionID     string `bun:"inscription_id"`
	InscriptionNumber int64  `bun:"inscription_number"`
	BlockHeight       int32  `bun:"block_height"`
	BlockHash         string `bun:"block_hash"`
	TxID              string `bun:"tx_id"`
	TxIndex           int32  `bun:"tx_index"`
	Address           string `bun:"address"`
	MaxSupply         string `bun:"max_supply"`
	MintLimit         string `bun:"mint_limit"`
	Decimals          int32  `bun:"decimals"`
	SelfMint          bool   `bun:"self_mint"`
	MintedSupply      string `bun:"minted_supply"`
	TxCount           int64  `bun:"tx_count"`
	DeployTimestamp   int64  `bun:"deploy_timestamp"`
	HolderCount       int64  `bun:"holders"` // addresses with a total balance above zero
}

// Hex renders bytes as the API does: "0x" + lowercase hex.
func Hex(b []byte) string { return fmt.Sprintf("0x%x", b) }
