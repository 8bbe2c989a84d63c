// Package tx decodes, encodes, signs and verifies Stacks transactions in the SIP-005 wire format,
// and renders the transaction fields the Hiro Stacks API derives from the bytes alone.
package tx

import (
	"crypto/sha512"
	"fmt"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

// Transaction versions and chain ids.
const (
	VersionMainnet byte   = 0x00
	VersionTestnet byte   = 0x80
	ChainIDMainnet uint32 = 0x00000001
	ChainIDTestnet uint32 = 0x80000000
)

// MaxTransactionLen is stacks-core's MAX_TRANSACTION_LEN.
const MaxTransactionLen = 2 << 20

// AuthType says whether a transaction has a sponsor.
type AuthType byte

// Authorization types.
const (
	AuthStandard  AuthType = 0x04
	AuthSponsored AuthType = 0x05
)

// HashMode says how a spending condition's signer hash is derived from its keys.
type HashMode byte

// Hash modes.
const (
	HashP2PKH                 HashMode = 0x00
	HashP2SH                  HashMode = 0x01
	HashP2WPKH                HashMode = 0x02
	HashP2WSH                 HashMode = 0x03
	HashP2SHOrderIndependent  HashMode = 0x05
	HashP2WSHOrderIndependent HashMode = 0x07
)

// IsSingleSig reports whether the mode has one key and one signature.
func (m HashMode) IsSingleSig() bool { return m == HashP2PKH || m == HashP2WPKH }

// IsOrderIndependent reports whether every signer signs the same sighash (SIP-027).
func (m HashMode) IsOrderIndependent() bool {
	return m == HashP2SHOrderIndependent || m == HashP2WSHOrderIndependent
}

func (m HashMode) valid() bool {
	switch m {
	case HashP2PKH, HashP2SH, HashP2WPKH, HashP2WSH, HashP2SHOrderIndependent, HashP2WSHOrderIndependent:
		return true
	}
	return false
}

// KeyEncoding says whether a public key is used compressed or uncompressed.
type KeyEncoding byte

// Key encodings.
const (
	KeyCompressed   KeyEncoding = 0x00
	KeyUncompressed KeyEncoding = 0x01
)

// AuthFieldType is the id of a multisig auth field.
type AuthFieldType byte

// Multisig auth field types.
const (
	FieldPublicKeyCompressed   AuthFieldType = 0x00
	FieldPublicKeyUncompressed AuthFieldType = 0x01
	FieldSignatureCompressed   AuthFieldType = 0x02
	FieldSignatureUncompressed AuthFieldType = 0x03
)

// IsSignature reports whether the field carries a signature rather than a public key.
func (f AuthFieldType) IsSignature() bool {
	return f == FieldSignatureCompressed || f == FieldSignatureUncompressed
}

// Compressed reports whether the field's key is used compressed.
func (f AuthFieldType) Compressed() bool {
	return f == FieldPublicKeyCompressed || f == FieldSignatureCompressed
}

// AuthField is one entry of a multisig condition: a 33-byte public key or a 65-byte signature.
type AuthField struct {
	Type      AuthFieldType
	PublicKey [33]byte // set for the public-key types
	Signature [65]byte // set for the signature types, recid ‖ r ‖ s
}

// SpendingCondition is the origin's or sponsor's authorization. Single-sig conditions use
// KeyEncoding and Signature; multisig conditions use Fields and SignaturesRequired.
type SpendingCondition struct {
	HashMode           HashMode
	Signer             [20]byte
	Nonce              uint64
	Fee                uint64
	KeyEncoding        KeyEncoding
	Signature          [65]byte
	Fields             []AuthField
	SignaturesRequired uint16
}

// Address is the c32 account the condition spends from, with the version its hash mode and the
// network select.
func (c *SpendingCondition) Address(mainnet bool) c32.Address {
	return c32.Address{Version: c32.VersionForHashMode(byte(c.HashMode), mainnet), Hash160: c.Signer}
}

// AnchorMode says where a transaction may be mined.
type AnchorMode byte

// Anchor modes.
const (
	AnchorOnChainOnly  AnchorMode = 0x01
	AnchorOffChainOnly AnchorMode = 0x02
	AnchorAny          AnchorMode = 0x03
)

// PostConditionMode says what happens to asset movements no post-condition covers.
type PostConditionMode byte

// Post-condition modes.
const (
	PostConditionAllow      PostConditionMode = 0x01
	PostConditionDeny       PostConditionMode = 0x02
	PostConditionOriginator PostConditionMode = 0x03
)

// Transaction is a decoded SIP-005 transaction.
type Transaction struct {
	Version           byte
	ChainID           uint32
	Auth              AuthType
	Origin            SpendingCondition
	Sponsor           *SpendingCondition // set iff Auth == AuthSponsored
	AnchorMode        AnchorMode
	PostConditionMode PostConditionMode
	PostConditions    []PostCondition
	Payload           Payload
}

// TxID is SHA-512/256 of the serialized transaction.
func (t *Transaction) TxID() [32]byte { return sha512.Sum512_256(t.Encode()) }

// TxIDHex is the tx id as the API writes it: "0x" + lowercase hex.
func (t *Transaction) TxIDHex() string {
	id := t.TxID()
	return fmt.Sprintf("0x%x", id[:])
}

// IsMainnet reports whether the version byte says mainnet (decoders treat the 0x80 bit as testnet).
func (t *Transaction) IsMainnet() bool { return t.Version&0x80 == 0 }

// Sender is the origin's account address.
func (t *Transaction) Sender() c32.Address { return t.Origin.Address(t.IsMainnet()) }

// SenderAddress is the API's sender_address.
func (t *Transaction) SenderAddress() string { return t.Sender().String() }

// SponsorAddress is the API's sponsor_address, present only for sponsored transactions.
func (t *Transaction) SponsorAddress() (string, bool) {
	if t.Sponsor == nil {
		return "", false
	}
	return t.Sponsor.Address(t.IsMainnet()).String(), true
}

// Nonce is the origin's nonce.
func (t *Transaction) Nonce() uint64 { return t.Origin.Nonce }

// SponsorNonce is the sponsor's nonce, present only for sponsored transactions.
func (t *Transaction) SponsorNonce() (uint64, bool) {
	if t.Sponsor == nil {
		return 0, false
	}
	return t.Sponsor.Nonce, true
}

// FeeRate is the fee the API reports: the sponsor's when sponsored, else the origin's. It is the
// total fee in µSTX despite the API's name.
func (t *Transaction) FeeRate() uint64 {
	if t.Sponsor != nil {
		return t.Sponsor.Fee
	}
	return t.Origin.Fee
}

// AssetKind is the post-condition's asset_info_id.
type AssetKind byte

// Post-condition kinds. Staking and PoX are stacks-core epoch-4.0 additions.
const (
	AssetSTX         AssetKind = 0x00
	AssetFungible    AssetKind = 0x01
	AssetNonFungible AssetKind = 0x02
	AssetStaking     AssetKind = 0x03
	AssetPoX         AssetKind = 0x04
)

// PrincipalKind is a post-condition principal's type byte.
type PrincipalKind byte

// Post-condition principal kinds.
const (
	PrincipalOrigin   PrincipalKind = 0x01
	PrincipalStandard PrincipalKind = 0x02
	PrincipalContract PrincipalKind = 0x03
)

// PostConditionPrincipal is the tx origin, a standard principal or a contract.
type PostConditionPrincipal struct {
	Kind      PrincipalKind
	Principal c32.Principal // unset for PrincipalOrigin
}

// AssetInfo names a fungible or non-fungible asset: the defining contract and the asset name.
type AssetInfo struct {
	Contract  c32.Principal
	AssetName string
}

// ConditionCode is a post-condition's comparison or NFT/PoX code.
type ConditionCode byte

// Condition codes.
const (
	CodeSentEqualTo              ConditionCode = 0x01
	CodeSentGreaterThan          ConditionCode = 0x02
	CodeSentGreaterThanOrEqualTo ConditionCode = 0x03
	CodeSentLessThan             ConditionCode = 0x04
	CodeSentLessThanOrEqualTo    ConditionCode = 0x05
	CodeSent                     ConditionCode = 0x10
	CodeNotSent                  ConditionCode = 0x11
	CodeMaybeSent                ConditionCode = 0x12
	CodeNotPerformed             ConditionCode = 0x30
	CodeMaybePerformed           ConditionCode = 0x31
	CodePerformed                ConditionCode = 0x32
)

// PostCondition is one post-condition. Amount is used by STX, fungible and staking conditions;
// Asset by fungible and non-fungible ones; AssetValue (the NFT id) by non-fungible ones.
type PostCondition struct {
	Kind       AssetKind
	Principal  PostConditionPrincipal
	Asset      AssetInfo
	AssetValue clarity.Value
	Code       ConditionCode
	Amount     uint64
}

// PayloadType is the payload's type byte.
type PayloadType byte

// Payload types.
const (
	PayloadTokenTransfer          PayloadType = 0x00
	PayloadSmartContract          PayloadType = 0x01
	PayloadContractCall           PayloadType = 0x02
	PayloadPoisonMicroblock       PayloadType = 0x03
	PayloadCoinbase               PayloadType = 0x04
	PayloadCoinbaseToAltRecipient PayloadType = 0x05
	PayloadVersionedSmartContract PayloadType = 0x06
	PayloadTenureChange           PayloadType = 0x07
	PayloadNakamotoCoinbase       PayloadType = 0x08
)

// Payload is one of *TokenTransfer, *SmartContract, *ContractCall, *PoisonMicroblock, *Coinbase
// or *TenureChange.
type Payload interface {
	Type() PayloadType
	appendTo(b []byte) []byte
}

// MemoLen is the fixed size of a token-transfer memo.
const MemoLen = 34

// TokenTransfer moves µSTX to a standard or contract principal.
type TokenTransfer struct {
	Recipient c32.Principal
	Amount    uint64
	Memo      [MemoLen]byte
}

// SmartContract deploys Clarity code. ClarityVersion 0 means the unversioned payload 0x01; 1..5
// means the versioned payload 0x06.
type SmartContract struct {
	Name           string
	Code           []byte
	ClarityVersion byte
}

// MaxClarityVersion is the newest Clarity version the decoder accepts.
const MaxClarityVersion = 5

// ContractCall calls a public function.
type ContractCall struct {
	Contract     c32.Principal
	FunctionName string
	Args         []clarity.Value
}

// MicroblockHeaderLen is version(1) ‖ sequence(2) ‖ prev block(32) ‖ tx merkle root(32) ‖ signature(65).
const MicroblockHeaderLen = 132

// PoisonMicroblock reports two conflicting microblock headers signed by the same miner.
type PoisonMicroblock struct {
	Header1, Header2 [MicroblockHeaderLen]byte
}

// VRFProofLen is the size of a Nakamoto coinbase VRF proof.
const VRFProofLen = 80

// Coinbase covers payloads 0x04 (no recipient), 0x05 (Recipient set) and the Nakamoto
// coinbase 0x08 (VRFProof set, Recipient optional).
type Coinbase struct {
	Data      [32]byte
	Recipient *c32.Principal
	VRFProof  *[VRFProofLen]byte
}

// TenureCause is why a tenure change happened.
type TenureCause byte

// Tenure-change causes; 2..6 are SIP-034 extensions.
const (
	CauseBlockFound          TenureCause = 0
	CauseExtended            TenureCause = 1
	CauseExtendedRuntime     TenureCause = 2
	CauseExtendedReadCount   TenureCause = 3
	CauseExtendedReadLength  TenureCause = 4
	CauseExtendedWriteCount  TenureCause = 5
	CauseExtendedWriteLength TenureCause = 6
)

// TenureChange starts or extends a Nakamoto tenure.
type TenureChange struct {
	TenureConsensusHash     [20]byte
	PrevTenureConsensusHash [20]byte
	BurnViewConsensusHash   [20]byte
	PreviousTenureEnd       [32]byte
	PreviousTenureBlocks    uint32
	Cause                   TenureCause
	PubkeyHash              [20]byte
}

func (*TokenTransfer) Type() PayloadType    { return PayloadTokenTransfer }
func (*ContractCall) Type() PayloadType     { return PayloadContractCall }
func (*PoisonMicroblock) Type() PayloadType { return PayloadPoisonMicroblock }
func (*TenureChange) Type() PayloadType     { return PayloadTenureChange }

func (p *SmartContract) Type() PayloadType {
	if p.ClarityVersion == 0 {
		return PayloadSmartContract
	}
	return PayloadVersionedSmartContract
}

func (p *Coinbase) Type() PayloadType {
	switch {
	case p.VRFProof != nil:
		return PayloadNakamotoCoinbase
	case p.Recipient != nil:
		return PayloadCoinbaseToAltRecipient
	default:
		return PayloadCoinbase
	}
}
