package rest

import "encoding/json"

// txBody is the reference's transaction, mined or pending, its members in the reference's order.
// Both kinds share their first members (tx_id … anchor_mode), tx_status and their last (tx_type
// and the payload); a mined transaction has where it sits before its tx_status and how it ran
// after it, a pending one its receipt after it. The optional members the reference leaves out,
// rather than sending null, are omitted when empty; nonces are JSON numbers.
type txBody struct {
	TxID              string              `json:"tx_id"`
	Nonce             json.Number         `json:"nonce"`
	FeeRate           string              `json:"fee_rate"`
	SenderAddress     string              `json:"sender_address"`
	SponsorNonce      json.Number         `json:"sponsor_nonce,omitempty"`
	Sponsored         bool                `json:"sponsored"`
	SponsorAddress    *string             `json:"sponsor_address,omitempty"`
	PostConditionMode PostConditionMode   `json:"post_condition_mode"`
	PostConditions    []postConditionBody `json:"post_conditions"`
	AnchorMode        AnchorMode          `json:"anchor_mode"`
	*minedBlock
	TxStatus TxStatus `json:"tx_status"`
	*minedResult
	*pendingReceipt
	TxType TxType `json:"tx_type"`
	// The payloads whose fragments select the reference's members under its names are rendered
	// as decoded.
	TokenTransfer       *TokenTransferFields    `json:"token_transfer,omitempty"`
	SmartContract       *SmartContractFields    `json:"smart_contract,omitempty"`
	ContractCall        *contractCallBody       `json:"contract_call,omitempty"`
	PoisonMicroblock    *PoisonMicroblockFields `json:"poison_microblock,omitempty"`
	CoinbasePayload     *coinbaseBody           `json:"coinbase_payload,omitempty"`
	TenureChangePayload *TenureChangeFields     `json:"tenure_change_payload,omitempty"`
}

// minedBlock is where a mined transaction sits: its block, and its place in it.
type minedBlock struct {
	BlockHash              string `json:"block_hash"`
	BlockHeight            int    `json:"block_height"`
	BlockTime              int    `json:"block_time"`
	BlockTimeISO           string `json:"block_time_iso"`
	BurnBlockTime          int    `json:"burn_block_time"`
	BurnBlockHeight        int    `json:"burn_block_height"`
	BurnBlockTimeISO       string `json:"burn_block_time_iso"`
	ParentBurnBlockTime    int    `json:"parent_burn_block_time"`
	ParentBurnBlockTimeISO string `json:"parent_burn_block_time_iso"`
	Canonical              bool   `json:"canonical"`
	TxIndex                int    `json:"tx_index"`
}

// minedResult is how a mined transaction ran, with its microblock and the events asked for.
type minedResult struct {
	TxResult                 clarityValue `json:"tx_result"`
	EventCount               int          `json:"event_count"`
	ParentBlockHash          string       `json:"parent_block_hash"`
	IsUnanchored             bool         `json:"is_unanchored"`
	MicroblockHash           string       `json:"microblock_hash"`
	MicroblockSequence       int          `json:"microblock_sequence"`
	MicroblockCanonical      bool         `json:"microblock_canonical"`
	ExecutionCostReadCount   int          `json:"execution_cost_read_count"`
	ExecutionCostReadLength  int          `json:"execution_cost_read_length"`
	ExecutionCostRuntime     int          `json:"execution_cost_runtime"`
	ExecutionCostWriteCount  int          `json:"execution_cost_write_count"`
	ExecutionCostWriteLength int          `json:"execution_cost_write_length"`
	VMError                  *string      `json:"vm_error"`
	Events                   []any        `json:"events"`
}

// pendingReceipt is a mempool transaction's receipt.
type pendingReceipt struct {
	ReplacedByTxID *string `json:"replaced_by_tx_id"`
	ReceiptTime    int     `json:"receipt_time"`
	ReceiptTimeISO string  `json:"receipt_time_iso"`
}

// postConditionBody is a post-condition; the reference leaves out what its kind has not.
type postConditionBody struct {
	Principal struct {
		TypeID       string  `json:"type_id"`
		Address      *string `json:"address,omitempty"`
		ContractName *string `json:"contract_name,omitempty"`
	} `json:"principal"`
	ConditionCode string                                      `json:"condition_code"`
	Amount        *string                                     `json:"amount,omitempty"`
	Type          string                                      `json:"type"`
	AssetValue    *clarityValue                               `json:"asset_value,omitempty"`
	Asset         *PostConditionFieldsAssetPostConditionAsset `json:"asset,omitempty"`
}

// contractCallBody is a contract call. Its arguments are left out when the request excludes them
// (the operation skips them: nil, unlike a call without arguments).
type contractCallBody struct {
	ContractID        string                                       `json:"contract_id"`
	FunctionName      string                                       `json:"function_name"`
	FunctionSignature string                                       `json:"function_signature"`
	FunctionArgs      []ContractCallFieldsFunction_argsFunctionArg `json:"function_args,omitzero"`
}

// coinbaseBody is a coinbase payload; only Nakamoto coinbases carry a VRF proof.
type coinbaseBody struct {
	Data         string  `json:"data"`
	AltRecipient *string `json:"alt_recipient"`
	VRFProof     *string `json:"vrf_proof,omitempty"`
}

// txFields are the members mined and pending transactions share (MinedTxFields, MempoolTxFields).
type txFields interface {
	GetTx_id() string
	GetNonce() string
	GetFee_rate() string
	GetSender_address() string
	GetSponsor_nonce() *string
	GetSponsored() bool
	GetSponsor_address() *string
	GetPost_condition_mode() PostConditionMode
	GetPost_conditions() []PostConditionFields
	GetAnchor_mode() AnchorMode
	GetTx_status() TxStatus
	GetTx_type() TxType
	GetToken_transfer() *TokenTransferFields
	GetSmart_contract() *SmartContractFields
	GetContract_call() *ContractCallFields
	GetPoison_microblock() *PoisonMicroblockFields
	GetCoinbase_payload() *CoinbaseFields
	GetTenure_change_payload() *TenureChangeFields
}

// minedTxBody renders a mined transaction with events, the ones its operation selected (none
// in the listings).
func minedTxBody(t *MinedTxFields, events []txEvent) (txBody, error) {
	b := newTxBody(t)
	b.minedBlock = &minedBlock{
		BlockHash: t.Block_hash, BlockHeight: t.Block_height, BlockTime: t.Block_time, BlockTimeISO: t.Block_time_iso,
		BurnBlockTime: t.Burn_block_time, BurnBlockHeight: t.Burn_block_height, BurnBlockTimeISO: t.Burn_block_time_iso,
		ParentBurnBlockTime: t.Parent_burn_block_time, ParentBurnBlockTimeISO: t.Parent_burn_block_time_iso,
		Canonical: t.Canonical, TxIndex: t.Tx_index,
	}
	b.minedResult = &minedResult{
		TxResult: clarityValue(t.Tx_result), EventCount: t.Event_count, ParentBlockHash: t.Parent_block_hash,
		IsUnanchored: t.Is_unanchored, MicroblockHash: t.Microblock_hash, MicroblockSequence: t.Microblock_sequence,
		MicroblockCanonical:      t.Microblock_canonical,
		ExecutionCostReadCount:   t.Execution_cost_read_count,
		ExecutionCostReadLength:  t.Execution_cost_read_length,
		ExecutionCostRuntime:     t.Execution_cost_runtime,
		ExecutionCostWriteCount:  t.Execution_cost_write_count,
		ExecutionCostWriteLength: t.Execution_cost_write_length,
		VMError:                  t.Vm_error,
		Events:                   make([]any, len(events)),
	}
	for i := range events {
		var err error
		if b.Events[i], err = eventBody(&events[i]); err != nil {
			return txBody{}, err
		}
	}
	return b, nil
}

// pendingTxBody renders a mempool transaction.
func pendingTxBody(t *MempoolTxFields) txBody {
	b := newTxBody(t)
	b.pendingReceipt = &pendingReceipt{ReplacedByTxID: t.Replaced_by_tx_id, ReceiptTime: t.Receipt_time, ReceiptTimeISO: t.Receipt_time_iso}
	return b
}

// newTxBody renders the members both kinds share.
func newTxBody(t txFields) txBody {
	return txBody{
		TxID:                t.GetTx_id(),
		Nonce:               json.Number(t.GetNonce()),
		FeeRate:             t.GetFee_rate(),
		SenderAddress:       t.GetSender_address(),
		SponsorNonce:        json.Number(deref(t.GetSponsor_nonce())),
		Sponsored:           t.GetSponsored(),
		SponsorAddress:      t.GetSponsor_address(),
		PostConditionMode:   t.GetPost_condition_mode(),
		PostConditions:      postConditions(t.GetPost_conditions()),
		AnchorMode:          t.GetAnchor_mode(),
		TxStatus:            t.GetTx_status(),
		TxType:              t.GetTx_type(),
		TokenTransfer:       t.GetToken_transfer(),
		SmartContract:       t.GetSmart_contract(),
		ContractCall:        contractCall(t.GetContract_call()),
		PoisonMicroblock:    t.GetPoison_microblock(),
		CoinbasePayload:     coinbase(t.GetCoinbase_payload()),
		TenureChangePayload: t.GetTenure_change_payload(),
	}
}

func postConditions(pcs []PostConditionFields) []postConditionBody {
	out := make([]postConditionBody, len(pcs))
	for i, pc := range pcs {
		o := &out[i]
		o.Principal.TypeID, o.Principal.Address, o.Principal.ContractName = pc.Principal.Type_id, pc.Principal.Address, pc.Principal.Contract_name
		o.ConditionCode, o.Amount, o.Type = pc.Condition_code, pc.Amount, pc.Type
		o.AssetValue, o.Asset = (*clarityValue)(pc.Asset_value), pc.Asset
	}
	return out
}

func contractCall(c *ContractCallFields) *contractCallBody {
	if c == nil {
		return nil
	}
	return &contractCallBody{ContractID: c.Contract_id, FunctionName: c.Function_name, FunctionSignature: c.Function_signature, FunctionArgs: c.Function_args}
}

func coinbase(c *CoinbaseFields) *coinbaseBody {
	if c == nil {
		return nil
	}
	return &coinbaseBody{Data: c.Data, AltRecipient: c.Alt_recipient, VRFProof: c.Vrf_proof}
}
