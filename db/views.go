package db

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/brc20"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Views of stored rows (transactions, events, blocks) computed from the row alone. They are
// methods without a context, so GraphQL resolves them inline with the row's other fields
// instead of starting a goroutine for each.

// Payload type ids as stored (the wire payload type byte).
const (
	TypeTokenTransfer int16 = iota
	TypeSmartContract
	TypeContractCall
	TypePoisonMicroblock
	TypeCoinbase
	TypeCoinbaseToAltRecipient
	TypeVersionedSmartContract
	TypeTenureChange
	TypeNakamotoCoinbase
)

// Decode decodes the transaction's stored bytes. Ingestion decoded them once already, so a
// failure here is an internal error.
func (f *TxFields) Decode() (*tx.Transaction, error) {
	t, err := tx.Decode(f.RawTx)
	if err != nil {
		return nil, fmt.Errorf("stored transaction does not decode: %w", err)
	}
	return t, nil
}

// Payload decodes the payload when the stored type is one of want, and returns nil otherwise
// without decoding: only the payload field that applies pays for a decode.
func (f *TxFields) Payload(want ...int16) (*tx.PayloadJSON, error) {
	for _, w := range want {
		if f.TypeID == w {
			t, err := f.Decode()
			if err != nil {
				return nil, err
			}
			p := t.PayloadJSON()
			return &p, nil
		}
	}
	return nil, nil
}

// payloadPart is one part of the payload of a transaction of the types want, or nil.
func payloadPart[T any](f *TxFields, part func(*tx.PayloadJSON) *T, want ...int16) (*T, error) {
	p, err := f.Payload(want...)
	if p == nil {
		return nil, err
	}
	return part(p), nil
}

// TokenTransfer is the payload of an STX transfer, or nil.
func (f *TxFields) TokenTransfer() (*tx.TokenTransferJSON, error) {
	return payloadPart(f, func(p *tx.PayloadJSON) *tx.TokenTransferJSON { return p.TokenTransfer }, TypeTokenTransfer)
}

// SmartContract is the payload of a contract deployment, or nil.
func (f *TxFields) SmartContract() (*tx.SmartContractJSON, error) {
	return payloadPart(f, func(p *tx.PayloadJSON) *tx.SmartContractJSON { return p.SmartContract },
		TypeSmartContract, TypeVersionedSmartContract)
}

// PoisonMicroblock is the payload of a poison-microblock report, or nil.
func (f *TxFields) PoisonMicroblock() (*tx.PoisonMicroblockJSON, error) {
	return payloadPart(f, func(p *tx.PayloadJSON) *tx.PoisonMicroblockJSON { return p.PoisonMicroblock }, TypePoisonMicroblock)
}

// CoinbasePayload is the payload of a coinbase, or nil.
func (f *TxFields) CoinbasePayload() (*tx.CoinbaseJSON, error) {
	return payloadPart(f, func(p *tx.PayloadJSON) *tx.CoinbaseJSON { return p.CoinbasePayload },
		TypeCoinbase, TypeCoinbaseToAltRecipient, TypeNakamotoCoinbase)
}

// TenureChangePayload is the payload of a tenure change, or nil.
func (f *TxFields) TenureChangePayload() (*tx.TenureChangeJSON, error) {
	return payloadPart(f, func(p *tx.PayloadJSON) *tx.TenureChangeJSON { return p.TenureChangePayload }, TypeTenureChange)
}

// PostConditions are the transaction's post-conditions.
func (f *TxFields) PostConditions() ([]*tx.PostConditionJSON, error) {
	t, err := f.Decode()
	if err != nil {
		return nil, err
	}
	out := make([]*tx.PostConditionJSON, len(t.PostConditions))
	for i := range t.PostConditions {
		j := t.PostConditions[i].JSON()
		out[i] = &j
	}
	return out, nil
}

// isoLayout is Date.toISOString's form of a time with a four-digit year.
const isoLayout = "2006-01-02T15:04:05.000Z"

// isoTime renders a unix time as the reference does (Date.toISOString); a zero time is the
// epoch, as for blocks and mempool receipts. A transaction shows three such times, so the
// digits are written directly rather than through time.Format's layout interpreter; a year
// outside 0–9999 takes Format's form.
func isoTime(unix int64) string {
	t := time.Unix(unix, 0).UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format(isoLayout)
	}
	hour, minute, second := t.Clock()
	var b [len(isoLayout)]byte
	copy(b[:], isoLayout)
	for _, f := range []struct{ at, width, v int }{
		{0, 4, year}, {5, 2, int(month)}, {8, 2, day}, {11, 2, hour}, {14, 2, minute}, {17, 2, second},
	} {
		for i, v := f.at+f.width-1, f.v; i >= f.at; i, v = i-1, v/10 {
			b[i] = byte('0' + v%10)
		}
	}
	return string(b[:])
}

// minedISOTime renders the time fields of a mined transaction, where the reference gives "" for a
// time that is not positive (a genesis burn block, or the unknown burn block of an unconfirmed
// microblock) instead of a date.
func minedISOTime(unix int64) string {
	if unix <= 0 {
		return ""
	}
	return isoTime(unix)
}

// ShownBlockTime is the block's own time (Nakamoto) or, before it, its burn block's.
func (t *Tx) ShownBlockTime() int64 {
	if t.BlockTime > 0 {
		return t.BlockTime
	}
	return t.BurnBlockTime
}

// BlockTimeIso is ShownBlockTime as the reference renders it.
func (t *Tx) BlockTimeIso() string { return minedISOTime(t.ShownBlockTime()) }

// BurnBlockTimeIso is the burn block's time as the reference renders it.
func (t *Tx) BurnBlockTimeIso() string { return minedISOTime(t.BurnBlockTime) }

// ParentBurnBlockTimeIso is the parent burn block's time as the reference renders it.
func (t *Tx) ParentBurnBlockTimeIso() string { return minedISOTime(t.ParentBurnBlockTime) }

// IsUnanchored reports a transaction of a microblock no anchor block has confirmed yet.
func (t *Tx) IsUnanchored() bool { return len(t.BlockHash) == 0 }

// ReceiptTimeIso is the time the node received the transaction, as the reference renders it.
func (t *MempoolTx) ReceiptTimeIso() string { return isoTime(t.ReceiptTime) }

// Views of an event read from its row alone: its kind, and the parts the schema nests in an
// object of their own, which are the same row.

func (*StxEvent) EventType() EventType     { return EventStxAsset }
func (*FtEvent) EventType() EventType      { return EventFungibleTokenAsset }
func (*NftEvent) EventType() EventType     { return EventNonFungibleTokenAsset }
func (*ContractLog) EventType() EventType  { return EventSmartContractLog }
func (*StxLockEvent) EventType() EventType { return EventStxLock }

func (e *StxEvent) Asset() *StxEvent                { return e }
func (e *FtEvent) Asset() *FtEvent                  { return e }
func (e *NftEvent) Asset() *NftEvent                { return e }
func (e *ContractLog) ContractLog() *ContractLog    { return e }
func (e *StxLockEvent) StxLockEvent() *StxLockEvent { return e }

// BlockTimeIso is the block's own time (Nakamoto) or, before it, its burn block's, as the
// reference renders it.
func (b *Block) BlockTimeIso() string {
	if b.BlockTime > 0 {
		return isoTime(b.BlockTime)
	}
	return isoTime(b.BurnBlockTime)
}

// BurnBlockTimeIso is the burn block's time as the reference renders it.
func (b *Block) BurnBlockTimeIso() string { return isoTime(b.BurnBlockTime) }

// ShownTenureHeight is the stored tenure height (Nakamoto), else -1 for a signed block whose
// tenure is unknown, else the block height (each pre-Nakamoto block is its own tenure).
func (b *Block) ShownTenureHeight() int32 {
	switch {
	case b.TenureHeight != nil:
		return *b.TenureHeight
	case b.SignerBitvec != nil:
		return -1
	default:
		return b.BlockHeight
	}
}

// TxResultValue is the transaction's result as {hex, repr}.
func (t *Tx) TxResultValue() (*tx.ValueJSON, error) { return clarityValue(t.RawResult) }

// DecodedValue is the printed value as {hex, repr}.
func (e *ContractLog) DecodedValue() (*tx.ValueJSON, error) { return clarityValue(e.Value) }

// DecodedValue is the token's value as {hex, repr}.
func (e *NftEvent) DecodedValue() (*tx.ValueJSON, error) { return clarityValue(e.Value) }

// clarityValue renders stored Clarity bytes as {hex, repr}. Ingestion decoded them once
// already, so a failure here is an internal error.
func clarityValue(b []byte) (*tx.ValueJSON, error) {
	v, _, err := clarity.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("stored Clarity value does not decode: %w", err)
	}
	j := tx.NewValueJSON(v)
	return &j, nil
}

// SenderOrEmpty and RecipientOrEmpty render a missing party (mint, burn) as "", as the
// reference does.
func (e *StxEvent) SenderOrEmpty() string    { return deref(e.Sender) }
func (e *StxEvent) RecipientOrEmpty() string { return deref(e.Recipient) }
func (e *FtEvent) SenderOrEmpty() string     { return deref(e.Sender) }
func (e *FtEvent) RecipientOrEmpty() string  { return deref(e.Recipient) }
func (e *NftEvent) SenderOrEmpty() string    { return deref(e.Sender) }
func (e *NftEvent) RecipientOrEmpty() string { return deref(e.Recipient) }

// TransferMemo is the memo of a transfer that carries one, else nil.
func (e *StxEvent) TransferMemo() []byte {
	if e.AssetEventTypeID != AssetEventTransfer || len(e.Memo) == 0 {
		return nil
	}
	return e.Memo
}

// The schema's enums that these views answer, bound to these types by name; the values are the
// schema's.
type (
	TxStatus          string
	TxType            string
	AnchorMode        string
	PostConditionMode string
	AssetEventType    string
)

var txStatuses = map[int16]TxStatus{
	TxStatusSuccess: "success", TxStatusAbortByResponse: "abort_by_response",
	TxStatusAbortByPostCondition: "abort_by_post_condition", TxStatusProblematicSkipped: "problematic_skipped",
	TxStatusPending: "pending", TxStatusDroppedReplaceByFee: "dropped_replace_by_fee",
	TxStatusDroppedReplaceAcrossFork: "dropped_replace_across_fork", TxStatusDroppedTooExpensive: "dropped_too_expensive",
	TxStatusDroppedStaleGC: "dropped_stale_garbage_collect", TxStatusDroppedAPIGC: "dropped_stale_garbage_collect",
	TxStatusDroppedProblematic: "dropped_problematic",
}

func txStatus(status int16) (TxStatus, error) {
	s, ok := txStatuses[status]
	if !ok {
		return "", fmt.Errorf("unknown stored transaction status %d", status)
	}
	return s, nil
}

// TxStatus is the mined transaction's status.
func (t *Tx) TxStatus() (TxStatus, error) { return txStatus(t.Status) }

// TxStatus is the mempool transaction's status.
func (t *MempoolTx) TxStatus() (TxStatus, error) { return txStatus(t.Status) }

var txTypes = map[int16]TxType{
	TypeTokenTransfer: "token_transfer", TypeSmartContract: "smart_contract", TypeContractCall: "contract_call",
	TypePoisonMicroblock: "poison_microblock", TypeCoinbase: "coinbase", TypeCoinbaseToAltRecipient: "coinbase",
	TypeVersionedSmartContract: "smart_contract", TypeTenureChange: "tenure_change", TypeNakamotoCoinbase: "coinbase",
}

// EventKindsOfType is the kinds of events a transaction of the stored type can emit: an STX
// transfer runs no contract code, so it emits STX events only (a Bitcoin-originated transfer as
// well); every other type can emit any kind. Reads of a transaction's events probe only these
// kinds' tables.
func EventKindsOfType(typeID int16) EventKinds {
	if typeID == TypeTokenTransfer {
		return KindsOf([]EventType{EventStxAsset})
	}
	return allEventKinds
}

// KindsOfEvents is the kinds of events a read of the transaction's events looks for: those
// ingestion recorded, or, for a row stored before they were (none recorded though it has
// events), those its type can emit.
func (t *Tx) KindsOfEvents() EventKinds {
	if t.EventKinds != 0 {
		return t.EventKinds
	}
	return EventKindsOfType(t.TypeID)
}

// TxType is the kind of the transaction's payload.
func (f *TxFields) TxType() (TxType, error) {
	t, ok := txTypes[f.TypeID]
	if !ok {
		return "", fmt.Errorf("unknown stored transaction type %d", f.TypeID)
	}
	return t, nil
}

// AnchorModeName and PostConditionModeName name the stored modes as the schema does.
func (f *TxFields) AnchorModeName() AnchorMode {
	return AnchorMode(tx.AnchorMode(f.AnchorMode).String())
}

func (f *TxFields) PostConditionModeName() PostConditionMode {
	return PostConditionMode(tx.PostConditionMode(f.PostConditionMode).String())
}

var assetEventTypes = map[int16]AssetEventType{AssetEventTransfer: "transfer", AssetEventMint: "mint", AssetEventBurn: "burn"}

// AssetEventType is the movement's kind.
func (e *StxEvent) AssetEventType() AssetEventType { return assetEventTypes[e.AssetEventTypeID] }
func (e *FtEvent) AssetEventType() AssetEventType  { return assetEventTypes[e.AssetEventTypeID] }
func (e *NftEvent) AssetEventType() AssetEventType { return assetEventTypes[e.AssetEventTypeID] }

// MempoolUpdatedAtSeconds renders the mempool's last change as unix seconds, as the reference's
// mempool ETag does.
func (t *ChainTip) MempoolUpdatedAtSeconds() string {
	return strconv.FormatFloat(float64(t.MempoolUpdatedAt.UnixMicro())/1e6, 'f', -1, 64)
}

// ReceiveTimeUnix is when the API received the microblock, in unix seconds.
func (m *Microblock) ReceiveTimeUnix() int32 { return int32(m.ReceiveTime.Unix()) }

// ABIText is the contract interface as JSON text, nil when the node reported none.
func (c *SmartContract) ABIText() *string {
	if len(c.ABI) == 0 || string(c.ABI) == "null" {
		return nil
	}
	abi := string(c.ABI)
	return &abi
}

// ClarityVersionNumber is the Clarity version, nil before Clarity 2.
func (c *SmartContract) ClarityVersionNumber() *int32 {
	if c.ClarityVersion == nil {
		return nil
	}
	v := int32(*c.ClarityVersion)
	return &v
}

// ReplacedBy is the transaction that replaced this one, nil when none did.
func (t *MempoolTx) ReplacedBy() []byte {
	if len(t.ReplacedByTxID) == 0 {
		return nil
	}
	return t.ReplacedByTxID
}

// Views of BRC-20 rows. Amounts are stored as integers in units of 10^-decimals and shown as
// decimal strings with exactly the token's decimals fractional digits.

// MaxSupplyDecimal, MintLimitDecimal and MintedSupplyDecimal are the token's figures as shown.
func (t *Brc20Token) MaxSupplyDecimal() string { return brc20.Unscale(t.MaxSupply, int(t.Decimals)) }

func (t *Brc20Token) MintLimitDecimal() string { return brc20.Unscale(t.MintLimit, int(t.Decimals)) }

func (t *Brc20Token) MintedSupplyDecimal() string {
	return brc20.Unscale(t.MintedSupply, int(t.Decimals))
}

// AvailableBalance, TransferrableBalance and OverallBalance are the balance's figures as shown.
func (b *Brc20Balance) AvailableBalance() string {
	return brc20.Unscale(b.AvailBalance, int(b.Decimals))
}

func (b *Brc20Balance) TransferrableBalance() string {
	return brc20.Unscale(b.TransBalance, int(b.Decimals))
}

func (b *Brc20Balance) OverallBalance() string { return brc20.Unscale(b.TotalBalance, int(b.Decimals)) }

// Brc20Operation is the schema's enum of operation kinds, bound to this type by name; the values
// are the schema's (the stored kinds in upper case).
type Brc20Operation string

// OperationKind is the operation's kind.
func (o *Brc20Activity) OperationKind() Brc20Operation {
	return Brc20Operation(strings.ToUpper(o.Operation))
}

// CreditedAddress is the address the operation credits: the receiver of a send, else the row's
// address.
func (o *Brc20Activity) CreditedAddress() string {
	if o.ToAddress != nil {
		return *o.ToAddress
	}
	return o.Address
}

// AmountDecimal is the amount minted, inscribed or sent; nil for a deploy.
func (o *Brc20Activity) AmountDecimal() *string {
	if o.Operation == "deploy" {
		return nil
	}
	s := brc20.Unscale(o.Amount, int(o.Decimals))
	return &s
}

// FromAddress is the inscriber of a transfer inscription (also the sender of its send); nil for
// deploys and mints.
func (o *Brc20Activity) FromAddress() *string {
	if o.Operation != "transfer" && o.Operation != "transfer_send" {
		return nil
	}
	return &o.Address
}

// Receiver is the receiver of a send; nil for other operations.
func (o *Brc20Activity) Receiver() *string {
	if o.Operation != "transfer_send" {
		return nil
	}
	to := o.CreditedAddress()
	return &to
}

// MaxSupplyDecimal and MintLimitDecimal are the token's figures, shown on deploys only.
func (o *Brc20Activity) MaxSupplyDecimal() *string { return o.deployFigure(o.MaxSupply) }
func (o *Brc20Activity) MintLimitDecimal() *string { return o.deployFigure(o.MintLimit) }

func (o *Brc20Activity) deployFigure(v string) *string {
	if o.Operation != "deploy" {
		return nil
	}
	s := brc20.Unscale(v, int(o.Decimals))
	return &s
}

// OrdinalNumberText is the inscribed sat's ordinal number in decimal.
func (t *Brc20Transferable) OrdinalNumberText() string { return strconv.FormatInt(t.OrdinalNumber, 10) }

// AmountDecimal is the amount the inscription carries, as shown.
func (t *Brc20Transferable) AmountDecimal() string { return brc20.Unscale(t.Amount, int(t.Decimals)) }
