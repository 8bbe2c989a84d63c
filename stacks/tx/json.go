package tx

import (
	"encoding/hex"
	"strconv"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

// Fields are the Hiro API transaction fields that come from the bytes alone, in the API's key
// order. Block, receipt and status fields come from the node's events and are added by callers.
type Fields struct {
	TxID              string              `json:"tx_id"`
	Nonce             uint64              `json:"nonce"`
	FeeRate           string              `json:"fee_rate"`
	SenderAddress     string              `json:"sender_address"`
	SponsorNonce      *uint64             `json:"sponsor_nonce,omitempty"`
	Sponsored         bool                `json:"sponsored"`
	SponsorAddress    string              `json:"sponsor_address,omitempty"`
	PostConditionMode string              `json:"post_condition_mode"`
	PostConditions    []PostConditionJSON `json:"post_conditions"`
	AnchorMode        string              `json:"anchor_mode"`
	PayloadJSON
}

// PayloadJSON is tx_type and the one type-specific object the API shows beside it.
type PayloadJSON struct {
	TxType              string                `json:"tx_type"`
	TokenTransfer       *TokenTransferJSON    `json:"token_transfer,omitempty"`
	SmartContract       *SmartContractJSON    `json:"smart_contract,omitempty"`
	ContractCall        *ContractCallJSON     `json:"contract_call,omitempty"`
	PoisonMicroblock    *PoisonMicroblockJSON `json:"poison_microblock,omitempty"`
	CoinbasePayload     *CoinbaseJSON         `json:"coinbase_payload,omitempty"`
	TenureChangePayload *TenureChangeJSON     `json:"tenure_change_payload,omitempty"`
}

// TokenTransferJSON is the API's token_transfer object.
type TokenTransferJSON struct {
	RecipientAddress string `json:"recipient_address"`
	Amount           string `json:"amount"`
	Memo             string `json:"memo"`
}

// SmartContractJSON is the API's smart_contract object. ClarityVersion is null for the
// unversioned payload.
type SmartContractJSON struct {
	ClarityVersion *int   `json:"clarity_version"`
	ContractID     string `json:"contract_id"`
	SourceCode     string `json:"source_code"`
}

// ContractCallJSON is the API's contract_call object. Without the contract's ABI,
// FunctionSignature and the argument names are empty and the argument types are the decoded
// values' type names; ApplyABI fills them in.
type ContractCallJSON struct {
	ContractID        string            `json:"contract_id"`
	FunctionName      string            `json:"function_name"`
	FunctionSignature string            `json:"function_signature"`
	FunctionArgs      []FunctionArgJSON `json:"function_args"`
}

// FunctionArgJSON is one contract-call argument.
type FunctionArgJSON struct {
	Hex  string `json:"hex"`
	Repr string `json:"repr"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// PoisonMicroblockJSON is the API's poison_microblock object.
type PoisonMicroblockJSON struct {
	MicroblockHeader1 string `json:"microblock_header_1"`
	MicroblockHeader2 string `json:"microblock_header_2"`
}

// CoinbaseJSON is the API's coinbase_payload object; vrf_proof exists only for Nakamoto coinbases.
type CoinbaseJSON struct {
	Data         string  `json:"data"`
	AltRecipient *string `json:"alt_recipient"`
	VRFProof     *string `json:"vrf_proof,omitempty"`
}

// TenureChangeJSON is the API's tenure_change_payload object.
type TenureChangeJSON struct {
	TenureConsensusHash     string `json:"tenure_consensus_hash"`
	PrevTenureConsensusHash string `json:"prev_tenure_consensus_hash"`
	BurnViewConsensusHash   string `json:"burn_view_consensus_hash"`
	PreviousTenureEnd       string `json:"previous_tenure_end"`
	PreviousTenureBlocks    uint32 `json:"previous_tenure_blocks"`
	Cause                   string `json:"cause"`
	PubkeyHash              string `json:"pubkey_hash"`
}

// PreviousTenureBlockCount is PreviousTenureBlocks as a GraphQL Int (a block count fits).
func (p TenureChangeJSON) PreviousTenureBlockCount() int32 { return int32(p.PreviousTenureBlocks) }

// PostConditionJSON is one post-condition as the API shows it. Amount is absent for NFT and PoX
// conditions; Asset for STX, staking and PoX; AssetValue except for NFTs.
type PostConditionJSON struct {
	Type          string        `json:"type"`
	ConditionCode string        `json:"condition_code"`
	Amount        string        `json:"amount,omitempty"`
	Principal     PrincipalJSON `json:"principal"`
	Asset         *AssetJSON    `json:"asset,omitempty"`
	AssetValue    *ValueJSON    `json:"asset_value,omitempty"`
}

// PrincipalJSON is a post-condition principal.
type PrincipalJSON struct {
	TypeID       string `json:"type_id"`
	ContractName string `json:"contract_name,omitempty"`
	Address      string `json:"address,omitempty"`
}

// AmountOrNil is the amount, nil where the condition has none.
func (pc PostConditionJSON) AmountOrNil() *string { return nonEmpty(pc.Amount) }

// AddressOrNil is the address, nil for the origin principal.
func (p PrincipalJSON) AddressOrNil() *string { return nonEmpty(p.Address) }

// ContractNameOrNil is the contract name, nil unless the principal is a contract.
func (p PrincipalJSON) ContractNameOrNil() *string { return nonEmpty(p.ContractName) }

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AssetJSON names a fungible or non-fungible asset.
type AssetJSON struct {
	ContractName    string `json:"contract_name"`
	AssetName       string `json:"asset_name"`
	ContractAddress string `json:"contract_address"`
}

// ValueJSON is a Clarity value as {hex, repr}.
type ValueJSON struct {
	Hex  string `json:"hex"`
	Repr string `json:"repr"`
}

// NewValueJSON renders v as {hex, repr}.
func NewValueJSON(v clarity.Value) ValueJSON {
	return ValueJSON{Hex: clarity.EncodeHex(v), Repr: v.Repr()}
}

// APIFields renders the fields without any contract ABI; see ApplyABI for contract calls.
func (t *Transaction) APIFields() Fields {
	f := Fields{
		TxID:              t.TxIDHex(),
		Nonce:             t.Nonce(),
		FeeRate:           strconv.FormatUint(t.FeeRate(), 10),
		SenderAddress:     t.SenderAddress(),
		Sponsored:         t.Sponsor != nil,
		PostConditionMode: t.PostConditionMode.String(),
		PostConditions:    PostConditionsJSON(t.PostConditions),
		AnchorMode:        t.AnchorMode.String(),
		PayloadJSON:       t.PayloadJSON(),
	}
	if n, ok := t.SponsorNonce(); ok {
		f.SponsorNonce = &n
		f.SponsorAddress, _ = t.SponsorAddress()
	}
	return f
}

// String is the API's anchor_mode name.
func (m AnchorMode) String() string {
	switch m {
	case AnchorOnChainOnly:
		return "on_chain_only"
	case AnchorOffChainOnly:
		return "off_chain_only"
	case AnchorAny:
		return "any"
	}
	return "unknown_" + strconv.Itoa(int(m))
}

// String is the API's post_condition_mode name.
func (m PostConditionMode) String() string {
	switch m {
	case PostConditionAllow:
		return "allow"
	case PostConditionDeny:
		return "deny"
	case PostConditionOriginator:
		return "originator"
	}
	return "unknown_" + strconv.Itoa(int(m))
}

var assetKindNames = map[AssetKind]string{
	AssetSTX: "stx", AssetFungible: "fungible", AssetNonFungible: "non_fungible",
	AssetStaking: "staking", AssetPoX: "pox",
}

var conditionCodeNames = map[ConditionCode]string{
	CodeSentEqualTo: "sent_equal_to", CodeSentGreaterThan: "sent_greater_than",
	CodeSentGreaterThanOrEqualTo: "sent_greater_than_or_equal_to", CodeSentLessThan: "sent_less_than",
	CodeSentLessThanOrEqualTo: "sent_less_than_or_equal_to",
	CodeSent:                  "sent", CodeNotSent: "not_sent", CodeMaybeSent: "maybe_sent",
	CodeNotPerformed: "not_performed", CodeMaybePerformed: "maybe_performed", CodePerformed: "performed",
}

var tenureCauseNames = []string{
	"block_found", "extended", "extended_runtime", "extended_read_count",
	"extended_read_length", "extended_write_count", "extended_write_length",
}

// String is the API's tenure-change cause name.
func (c TenureCause) String() string {
	if int(c) < len(tenureCauseNames) {
		return tenureCauseNames[c]
	}
	return "unknown_" + strconv.Itoa(int(c))
}

// PostConditionsJSON renders post-conditions as the API does; it never returns nil, so an empty
// list marshals as [].
func PostConditionsJSON(pcs []PostCondition) []PostConditionJSON {
	out := make([]PostConditionJSON, len(pcs))
	for i := range pcs {
		out[i] = pcs[i].JSON()
	}
	return out
}

// JSON renders one post-condition.
func (pc *PostCondition) JSON() PostConditionJSON {
	j := PostConditionJSON{
		Type:          assetKindNames[pc.Kind],
		ConditionCode: conditionCodeNames[pc.Code],
		Principal:     pc.Principal.JSON(),
	}
	switch pc.Kind {
	case AssetSTX, AssetFungible, AssetStaking:
		j.Amount = strconv.FormatUint(pc.Amount, 10)
	}
	if pc.Kind == AssetFungible || pc.Kind == AssetNonFungible {
		j.Asset = &AssetJSON{
			ContractName:    pc.Asset.Contract.ContractName,
			AssetName:       pc.Asset.AssetName,
			ContractAddress: pc.Asset.Contract.Address.String(),
		}
	}
	if pc.Kind == AssetNonFungible {
		v := NewValueJSON(pc.AssetValue)
		j.AssetValue = &v
	}
	return j
}

// JSON renders a post-condition principal.
func (p PostConditionPrincipal) JSON() PrincipalJSON {
	switch p.Kind {
	case PrincipalStandard:
		return PrincipalJSON{TypeID: "principal_standard", Address: p.Principal.Address.String()}
	case PrincipalContract:
		return PrincipalJSON{TypeID: "principal_contract", ContractName: p.Principal.ContractName, Address: p.Principal.Address.String()}
	}
	return PrincipalJSON{TypeID: "principal_origin"}
}

func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }

// PayloadJSON renders tx_type and the payload object, without ABI information.
func (t *Transaction) PayloadJSON() PayloadJSON {
	switch p := t.Payload.(type) {
	case *TokenTransfer:
		return PayloadJSON{TxType: "token_transfer", TokenTransfer: &TokenTransferJSON{
			RecipientAddress: p.Recipient.String(),
			Amount:           strconv.FormatUint(p.Amount, 10),
			Memo:             hex0x(p.Memo[:]),
		}}
	case *SmartContract:
		j := &SmartContractJSON{
			ContractID: c32.Principal{Address: t.Sender(), ContractName: p.Name}.String(),
			SourceCode: clarity.LossyString(p.Code),
		}
		if p.ClarityVersion != 0 {
			v := int(p.ClarityVersion)
			j.ClarityVersion = &v
		}
		return PayloadJSON{TxType: "smart_contract", SmartContract: j}
	case *ContractCall:
		return PayloadJSON{TxType: "contract_call", ContractCall: p.JSON()}
	case *PoisonMicroblock:
		return PayloadJSON{TxType: "poison_microblock", PoisonMicroblock: &PoisonMicroblockJSON{
			MicroblockHeader1: hex0x(p.Header1[:]),
			MicroblockHeader2: hex0x(p.Header2[:]),
		}}
	case *Coinbase:
		return PayloadJSON{TxType: "coinbase", CoinbasePayload: p.JSON()}
	case *TenureChange:
		return PayloadJSON{TxType: "tenure_change", TenureChangePayload: &TenureChangeJSON{
			TenureConsensusHash:     hex0x(p.TenureConsensusHash[:]),
			PrevTenureConsensusHash: hex0x(p.PrevTenureConsensusHash[:]),
			BurnViewConsensusHash:   hex0x(p.BurnViewConsensusHash[:]),
			PreviousTenureEnd:       hex0x(p.PreviousTenureEnd[:]),
			PreviousTenureBlocks:    p.PreviousTenureBlocks,
			Cause:                   p.Cause.String(),
			PubkeyHash:              hex0x(p.PubkeyHash[:]),
		}}
	}
	return PayloadJSON{}
}

// JSON renders the contract call without its ABI.
func (p *ContractCall) JSON() *ContractCallJSON {
	j := &ContractCallJSON{
		ContractID:   p.Contract.String(),
		FunctionName: p.FunctionName,
		FunctionArgs: make([]FunctionArgJSON, len(p.Args)),
	}
	for i, a := range p.Args {
		j.FunctionArgs[i] = FunctionArgJSON{Hex: clarity.EncodeHex(a), Repr: a.Repr(), Type: clarity.TypeString(a)}
	}
	return j
}

// JSON renders a coinbase payload.
func (p *Coinbase) JSON() *CoinbaseJSON {
	j := &CoinbaseJSON{Data: hex0x(p.Data[:])}
	if p.Recipient != nil {
		r := p.Recipient.String()
		j.AltRecipient = &r
	}
	if p.VRFProof != nil {
		v := hex0x(p.VRFProof[:])
		j.VRFProof = &v
	}
	return j
}
