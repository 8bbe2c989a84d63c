package ingest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// The payloads of the stacks-node event observer (stacks-core's event dispatcher). Integers
// beyond 2^53 (u128 amounts) are read exactly: amounts are decimal strings on the wire, and
// decimal accepts a JSON number or a string holding one.

type blockMessage struct {
	BlockHash                hexBytes             `json:"block_hash"`
	BlockHeight              int32                `json:"block_height"`
	BurnBlockTime            int64                `json:"burn_block_time"`
	BurnBlockHash            hexBytes             `json:"burn_block_hash"`
	BurnBlockHeight          int32                `json:"burn_block_height"`
	MinerTxid                hexBytes             `json:"miner_txid"`
	IndexBlockHash           hexBytes             `json:"index_block_hash"`
	ParentIndexBlockHash     hexBytes             `json:"parent_index_block_hash"`
	ParentBlockHash          hexBytes             `json:"parent_block_hash"`
	ParentMicroblock         hexBytes             `json:"parent_microblock"`
	ParentMicroblockSequence int32                `json:"parent_microblock_sequence"`
	ParentBurnBlockHash      hexBytes             `json:"parent_burn_block_hash"`
	ParentBurnBlockHeight    int32                `json:"parent_burn_block_height"`
	ParentBurnBlockTimestamp int64                `json:"parent_burn_block_timestamp"`
	Events                   []eventMessage       `json:"events"`
	Transactions             []txMessage          `json:"transactions"`
	MaturedMinerRewards      []minerRewardMessage `json:"matured_miner_rewards"`
	AnchoredCost             *costMessage         `json:"anchored_cost"`
	PoxV1UnlockHeight        *int32               `json:"pox_v1_unlock_height"`
	PoxV2UnlockHeight        *int32               `json:"pox_v2_unlock_height"`
	PoxV3UnlockHeight        *int32               `json:"pox_v3_unlock_height"`
	PoxV4UnlockHeight        *int32               `json:"pox_v4_unlock_height"`
	TenureHeight             *int32               `json:"tenure_height"`
	BlockTime                *int64               `json:"block_time"`
	SignerBitvec             *string              `json:"signer_bitvec"`
	SignerSignature          []string             `json:"signer_signature"`
	ConsensusHash            hexBytes             `json:"consensus_hash"`
	RewardSet                *rewardSetMessage    `json:"reward_set"`
	CycleNumber              *int32               `json:"cycle_number"`
}

// rewardSetMessage is the reward set a Nakamoto-era block announces for cycle_number.
type rewardSetMessage struct {
	Signers []signerMessage `json:"signers"`
}

type signerMessage struct {
	SigningKey hexBytes `json:"signing_key"`
	Weight     int32    `json:"weight"`
	StackedAmt decimal  `json:"stacked_amt"`
}

type microblocksMessage struct {
	ParentIndexBlockHash hexBytes       `json:"parent_index_block_hash"`
	BurnBlockHash        hexBytes       `json:"burn_block_hash"`
	BurnBlockHeight      int32          `json:"burn_block_height"`
	BurnBlockTimestamp   int64          `json:"burn_block_timestamp"`
	Transactions         []txMessage    `json:"transactions"`
	Events               []eventMessage `json:"events"`
}

type txMessage struct {
	TxID                 hexBytes        `json:"txid"`
	RawTx                hexBytes        `json:"raw_tx"`
	Status               string          `json:"status"`
	RawResult            hexBytes        `json:"raw_result"`
	TxIndex              int32           `json:"tx_index"`
	ContractInterface    json.RawMessage `json:"contract_interface"`
	ContractABI          json.RawMessage `json:"contract_abi"`
	ExecutionCost        costMessage     `json:"execution_cost"`
	MicroblockSequence   *int32          `json:"microblock_sequence"`
	MicroblockHash       hexBytes        `json:"microblock_hash"`
	MicroblockParentHash hexBytes        `json:"microblock_parent_hash"`
	VMError              *string         `json:"vm_error"`
	BurnchainOp          json.RawMessage `json:"burnchain_op"`
}

type costMessage struct {
	ReadCount   int64 `json:"read_count"`
	ReadLength  int64 `json:"read_length"`
	Runtime     int64 `json:"runtime"`
	WriteCount  int64 `json:"write_count"`
	WriteLength int64 `json:"write_length"`
}

type minerRewardMessage struct {
	Recipient               string   `json:"recipient"`
	MinerAddress            *string  `json:"miner_address"`
	CoinbaseAmount          decimal  `json:"coinbase_amount"`
	TxFeesAnchored          decimal  `json:"tx_fees_anchored"`
	TxFeesStreamedConfirmed decimal  `json:"tx_fees_streamed_confirmed"`
	TxFeesStreamedProduced  decimal  `json:"tx_fees_streamed_produced"`
	FromStacksBlockHash     hexBytes `json:"from_stacks_block_hash"`
	// The node names it a consensus hash, but sends the index block hash.
	FromIndexConsensusHash hexBytes `json:"from_index_consensus_hash"`
}

type eventMessage struct {
	TxID       hexBytes `json:"txid"`
	EventIndex int32    `json:"event_index"`
	Committed  bool     `json:"committed"`
	Type       string   `json:"type"`

	ContractEvent *struct {
		ContractIdentifier string   `json:"contract_identifier"`
		Topic              string   `json:"topic"`
		RawValue           hexBytes `json:"raw_value"`
	} `json:"contract_event"`
	StxTransferEvent *assetEvent `json:"stx_transfer_event"`
	StxMintEvent     *assetEvent `json:"stx_mint_event"`
	StxBurnEvent     *assetEvent `json:"stx_burn_event"`
	StxLockEvent     *struct {
		LockedAmount       decimal `json:"locked_amount"`
		UnlockHeight       decimal `json:"unlock_height"`
		LockedAddress      string  `json:"locked_address"`
		ContractIdentifier string  `json:"contract_identifier"`
	} `json:"stx_lock_event"`
	FtTransferEvent  *assetEvent `json:"ft_transfer_event"`
	FtMintEvent      *assetEvent `json:"ft_mint_event"`
	FtBurnEvent      *assetEvent `json:"ft_burn_event"`
	NftTransferEvent *assetEvent `json:"nft_transfer_event"`
	NftMintEvent     *assetEvent `json:"nft_mint_event"`
	NftBurnEvent     *assetEvent `json:"nft_burn_event"`
}

// assetEvent is the body of every STX, FT and NFT transfer, mint and burn event.
type assetEvent struct {
	AssetIdentifier string   `json:"asset_identifier"`
	Sender          *string  `json:"sender"`
	Recipient       *string  `json:"recipient"`
	Amount          decimal  `json:"amount"`
	Memo            hexBytes `json:"memo"`
	RawValue        hexBytes `json:"raw_value"`
}

type burnBlockMessage struct {
	BurnBlockHash       hexBytes `json:"burn_block_hash"`
	BurnBlockHeight     int32    `json:"burn_block_height"`
	BurnAmount          decimal  `json:"burn_amount"`
	ConsensusHash       hexBytes `json:"consensus_hash"`
	ParentBurnBlockHash hexBytes `json:"parent_burn_block_hash"`
	RewardRecipients    []struct {
		Recipient string  `json:"recipient"`
		Amt       decimal `json:"amt"`
	} `json:"reward_recipients"`
	RewardSlotHolders []string `json:"reward_slot_holders"`
}

type dropMempoolMessage struct {
	DroppedTxids []hexBytes `json:"dropped_txids"`
	Reason       string     `json:"reason"`
	NewTxid      hexBytes   `json:"new_txid"`
}

type attachmentMessage struct {
	AttachmentIndex int32    `json:"attachment_index"`
	IndexBlockHash  hexBytes `json:"index_block_hash"`
	BlockHeight     decimal  `json:"block_height"`
	ContentHash     hexBytes `json:"content_hash"`
	ContractID      string   `json:"contract_id"`
	Metadata        hexBytes `json:"metadata"`
	TxID            hexBytes `json:"tx_id"`
	Content         hexBytes `json:"content"`
}

// hexBytes is a hex string with or without "0x"; null and "" are empty.
type hexBytes []byte

func (h *hexBytes) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*h = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return fmt.Errorf("invalid hex %q: %w", truncate(s), err)
	}
	*h = v
	return nil
}

// decimal is a non-negative or negative integer of any size, as a JSON number or string.
type decimal string

func (d *decimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = ""
		return nil
	}
	s := string(bytes.Trim(b, `"`))
	if _, ok := new(big.Int).SetString(s, 10); !ok {
		return fmt.Errorf("invalid integer %s", truncate(string(b)))
	}
	*d = decimal(s)
	return nil
}

// orZero is the value, or "0" when absent.
func (d decimal) orZero() string {
	if d == "" {
		return "0"
	}
	return string(d)
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// decodeJSON parses a message body; a malformed body is the sender's error.
func decodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return malformed("invalid JSON payload: %v", err)
	}
	return nil
}
