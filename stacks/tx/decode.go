package tx

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/wire"
)

// DecodeError reports malformed transaction bytes and the offset where decoding failed. Its
// Error reads "transaction: <Msg> at byte offset <Offset>".
type DecodeError = wire.DecodeError

// errSource prefixes the messages of this package's DecodeErrors.
const errSource = "transaction"

// Decode parses exactly one transaction. Trailing bytes are an error because the tx id hashes
// every byte: an observer's raw_tx with extra bytes would not match its txid.
func Decode(raw []byte) (*Transaction, error) {
	t, n, err := DecodePrefix(raw)
	if err != nil {
		return nil, err
	}
	if n != len(raw) {
		return nil, &DecodeError{Offset: n, Msg: fmt.Sprintf("%d trailing bytes after the transaction", len(raw)-n), Source: errSource}
	}
	return t, nil
}

// DecodeHex parses a transaction from hex, with or without "0x".
func DecodeHex(s string) (*Transaction, error) {
	raw, err := clarity.ParseHex(s)
	if err != nil {
		return nil, err
	}
	return Decode(raw)
}

// DecodePrefix parses one transaction from the start of raw and reports the bytes it used, for
// reading a sequence of transactions such as a block body.
func DecodePrefix(raw []byte) (*Transaction, int, error) {
	if len(raw) > MaxTransactionLen {
		raw = raw[:MaxTransactionLen] // a transaction cannot extend past the limit
	}
	d := decoder{wire.NewReader(errSource, raw)}
	t, err := d.transaction()
	if err != nil {
		return nil, 0, err
	}
	return t, d.Offset(), nil
}

// decoder reads transactions; the wire.Reader supplies the bounded reads and errors.
type decoder struct {
	wire.Reader
}

// maxPrealloc caps the capacity reserved from a declared count; longer sequences grow as their
// elements actually decode, so a lying count costs nothing.
const maxPrealloc = 64

// enum reads one byte and checks it against valid.
func (d *decoder) enum(what string, valid func(byte) bool) (byte, error) {
	at := d.Offset()
	b, err := d.U8(what)
	if err == nil && !valid(b) {
		err = d.Fail(at, "unknown %s 0x%02x", what, b)
	}
	return b, err
}

func (d *decoder) transaction() (*Transaction, error) {
	t := &Transaction{}
	var err error
	if t.Version, err = d.enum("transaction version", func(b byte) bool { return b == VersionMainnet || b == VersionTestnet }); err != nil {
		return nil, err
	}
	if t.ChainID, err = d.U32("chain id"); err != nil {
		return nil, err
	}
	auth, err := d.enum("authorization type", func(b byte) bool { return AuthType(b) == AuthStandard || AuthType(b) == AuthSponsored })
	if err != nil {
		return nil, err
	}
	t.Auth = AuthType(auth)
	if err := d.spendingCondition(&t.Origin); err != nil {
		return nil, err
	}
	if t.Auth == AuthSponsored {
		t.Sponsor = &SpendingCondition{}
		if err := d.spendingCondition(t.Sponsor); err != nil {
			return nil, err
		}
	}
	anchor, err := d.enum("anchor mode", func(b byte) bool { return b >= 1 && b <= 3 })
	if err != nil {
		return nil, err
	}
	t.AnchorMode = AnchorMode(anchor)
	mode, err := d.enum("post-condition mode", func(b byte) bool { return b >= 1 && b <= 3 })
	if err != nil {
		return nil, err
	}
	t.PostConditionMode = PostConditionMode(mode)
	if t.PostConditions, err = d.postConditions(); err != nil {
		return nil, err
	}
	t.Payload, err = d.payload()
	return t, err
}

// Auth field sizes: id byte plus a 33-byte key or a 65-byte signature.
const minAuthFieldLen = 1 + 33

func (d *decoder) spendingCondition(c *SpendingCondition) error {
	mode, err := d.enum("hash mode", func(b byte) bool { return HashMode(b).valid() })
	if err != nil {
		return err
	}
	c.HashMode = HashMode(mode)
	if err := d.Fixed(c.Signer[:], "signer hash"); err != nil {
		return err
	}
	if c.Nonce, err = d.U64("nonce"); err != nil {
		return err
	}
	if c.Fee, err = d.U64("fee"); err != nil {
		return err
	}
	if c.HashMode.IsSingleSig() {
		enc, err := d.enum("key encoding", func(b byte) bool { return b <= 1 })
		if err != nil {
			return err
		}
		c.KeyEncoding = KeyEncoding(enc)
		return d.Fixed(c.Signature[:], "signature")
	}
	n, err := d.Count("auth field count", minAuthFieldLen)
	if err != nil {
		return err
	}
	c.Fields = make([]AuthField, 0, min(n, maxPrealloc))
	for range n {
		var f AuthField
		if err := d.authField(&f); err != nil {
			return err
		}
		c.Fields = append(c.Fields, f)
	}
	c.SignaturesRequired, err = d.U16("signatures required")
	return err
}

func (d *decoder) authField(f *AuthField) error {
	id, err := d.enum("auth field type", func(b byte) bool { return b <= 3 })
	if err != nil {
		return err
	}
	f.Type = AuthFieldType(id)
	if f.Type.IsSignature() {
		return d.Fixed(f.Signature[:], "auth field signature")
	}
	return d.Fixed(f.PublicKey[:], "auth field public key")
}

// A post-condition is at least kind(1) + principal(1) + code(1).
const minPostConditionLen = 3

func (d *decoder) postConditions() ([]PostCondition, error) {
	n, err := d.Count("post-condition count", minPostConditionLen)
	if err != nil {
		return nil, err
	}
	pcs := make([]PostCondition, 0, min(n, maxPrealloc))
	for range n {
		var pc PostCondition
		if err := d.postCondition(&pc); err != nil {
			return nil, err
		}
		pcs = append(pcs, pc)
	}
	return pcs, nil
}

func (d *decoder) postCondition(pc *PostCondition) error {
	kind, err := d.enum("post-condition asset type", func(b byte) bool { return b <= byte(AssetPoX) })
	if err != nil {
		return err
	}
	pc.Kind = AssetKind(kind)
	if pc.Principal, err = d.postConditionPrincipal(); err != nil {
		return err
	}
	if pc.Kind == AssetFungible || pc.Kind == AssetNonFungible {
		if pc.Asset, err = d.assetInfo(); err != nil {
			return err
		}
	}
	if pc.Kind == AssetNonFungible {
		if pc.AssetValue, err = d.clarityValue("NFT asset value", -1); err != nil {
			return err
		}
	}
	code, err := d.enum("condition code", func(b byte) bool { return validCode(pc.Kind, ConditionCode(b)) })
	if err != nil {
		return err
	}
	pc.Code = ConditionCode(code)
	if pc.Kind == AssetSTX || pc.Kind == AssetFungible || pc.Kind == AssetStaking {
		pc.Amount, err = d.U64("post-condition amount")
	}
	return err
}

func validCode(kind AssetKind, c ConditionCode) bool {
	switch kind {
	case AssetNonFungible:
		return c >= CodeSent && c <= CodeMaybeSent
	case AssetPoX:
		return c >= CodeNotPerformed && c <= CodePerformed
	default:
		return c >= CodeSentEqualTo && c <= CodeSentLessThanOrEqualTo
	}
}

func (d *decoder) postConditionPrincipal() (PostConditionPrincipal, error) {
	kind, err := d.enum("post-condition principal type", func(b byte) bool { return b >= 1 && b <= 3 })
	if err != nil {
		return PostConditionPrincipal{}, err
	}
	p := PostConditionPrincipal{Kind: PrincipalKind(kind)}
	if p.Kind == PrincipalOrigin {
		return p, nil
	}
	p.Principal, err = d.Principal(p.Kind == PrincipalContract)
	return p, err
}

func (d *decoder) assetInfo() (AssetInfo, error) {
	var a AssetInfo
	var err error
	if a.Contract.Address, err = d.Address(); err != nil {
		return a, err
	}
	if a.Contract.ContractName, err = d.Name("asset contract name", c32.ValidContractName); err != nil {
		return a, err
	}
	a.AssetName, err = d.Name("asset name", clarity.ValidClarityName)
	return a, err
}

// clarityValue decodes an embedded Clarity value, reporting errors at their offset in the tx.
// The description is formatted only on error, with index appended when it is not negative.
func (d *decoder) clarityValue(what string, index int) (clarity.Value, error) {
	v, n, err := clarity.Decode(d.Rest())
	if err != nil {
		if index >= 0 {
			what += " " + strconv.Itoa(index)
		}
		var ce *clarity.DecodeError
		if errors.As(err, &ce) {
			return nil, d.Fail(d.Offset()+ce.Offset, "%s: %s", what, ce.Msg)
		}
		return nil, err
	}
	d.Skip(n)
	return v, nil
}

// clarityPrincipal reads a payload principal in Clarity form (type byte 0x05 or 0x06).
func (d *decoder) clarityPrincipal(what string) (c32.Principal, error) {
	at := d.Offset()
	if rest := d.Rest(); len(rest) > 0 {
		if t := clarity.TypeID(rest[0]); t != clarity.TypeStandardPrincipal && t != clarity.TypeContractPrincipal {
			return c32.Principal{}, d.Fail(at, "%s: expected a principal, got Clarity type 0x%02x", what, byte(t))
		}
	}
	v, err := d.clarityValue(what, -1)
	if err != nil {
		return c32.Principal{}, err
	}
	return v.(clarity.Principal).Principal, nil
}

func (d *decoder) payload() (Payload, error) {
	at := d.Offset()
	id, err := d.U8("payload type")
	if err != nil {
		return nil, err
	}
	switch PayloadType(id) {
	case PayloadTokenTransfer:
		return d.tokenTransfer()
	case PayloadSmartContract:
		return d.smartContract(0)
	case PayloadVersionedSmartContract:
		v, err := d.enum("Clarity version", func(b byte) bool { return b >= 1 && b <= MaxClarityVersion })
		if err != nil {
			return nil, err
		}
		return d.smartContract(v)
	case PayloadContractCall:
		return d.contractCall()
	case PayloadPoisonMicroblock:
		p := &PoisonMicroblock{}
		if err := d.Fixed(p.Header1[:], "microblock header 1"); err != nil {
			return nil, err
		}
		return p, d.Fixed(p.Header2[:], "microblock header 2")
	case PayloadCoinbase, PayloadCoinbaseToAltRecipient, PayloadNakamotoCoinbase:
		return d.coinbase(PayloadType(id))
	case PayloadTenureChange:
		return d.tenureChange()
	default:
		return nil, d.Fail(at, "unknown payload type 0x%02x", id)
	}
}

func (d *decoder) tokenTransfer() (Payload, error) {
	p := &TokenTransfer{}
	var err error
	if p.Recipient, err = d.clarityPrincipal("token-transfer recipient"); err != nil {
		return nil, err
	}
	if p.Amount, err = d.U64("amount"); err != nil {
		return nil, err
	}
	return p, d.Fixed(p.Memo[:], "memo")
}

func (d *decoder) smartContract(version byte) (Payload, error) {
	p := &SmartContract{ClarityVersion: version}
	var err error
	if p.Name, err = d.Name("contract name", c32.ValidContractName); err != nil {
		return nil, err
	}
	n, err := d.Count("code length", 1)
	if err != nil {
		return nil, err
	}
	code, err := d.Take(n, "code body")
	p.Code = append([]byte{}, code...)
	return p, err
}

func (d *decoder) contractCall() (Payload, error) {
	p := &ContractCall{}
	var err error
	if p.Contract, err = d.Principal(true); err != nil {
		return nil, err
	}
	if p.FunctionName, err = d.Name("function name", clarity.ValidClarityName); err != nil {
		return nil, err
	}
	n, err := d.Count("argument count", 1)
	if err != nil {
		return nil, err
	}
	p.Args = make([]clarity.Value, 0, min(n, maxPrealloc))
	for i := range n {
		arg, err := d.clarityValue("argument", i)
		if err != nil {
			return nil, err
		}
		p.Args = append(p.Args, arg)
	}
	return p, nil
}

func (d *decoder) coinbase(id PayloadType) (Payload, error) {
	p := &Coinbase{}
	if err := d.Fixed(p.Data[:], "coinbase buffer"); err != nil {
		return nil, err
	}
	switch id {
	case PayloadCoinbaseToAltRecipient:
		r, err := d.clarityPrincipal("coinbase recipient")
		if err != nil {
			return nil, err
		}
		p.Recipient = &r
	case PayloadNakamotoCoinbase:
		opt, err := d.enum("coinbase recipient option", func(b byte) bool {
			return clarity.TypeID(b) == clarity.TypeNone || clarity.TypeID(b) == clarity.TypeSome
		})
		if err != nil {
			return nil, err
		}
		if clarity.TypeID(opt) == clarity.TypeSome {
			r, err := d.clarityPrincipal("coinbase recipient")
			if err != nil {
				return nil, err
			}
			p.Recipient = &r
		}
		p.VRFProof = &[VRFProofLen]byte{}
		if err := d.Fixed(p.VRFProof[:], "VRF proof"); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (d *decoder) tenureChange() (Payload, error) {
	p := &TenureChange{}
	for _, f := range []struct {
		dst  []byte
		what string
	}{
		{p.TenureConsensusHash[:], "tenure consensus hash"},
		{p.PrevTenureConsensusHash[:], "previous tenure consensus hash"},
		{p.BurnViewConsensusHash[:], "burn view consensus hash"},
		{p.PreviousTenureEnd[:], "previous tenure end"},
	} {
		if err := d.Fixed(f.dst, f.what); err != nil {
			return nil, err
		}
	}
	var err error
	if p.PreviousTenureBlocks, err = d.U32("previous tenure blocks"); err != nil {
		return nil, err
	}
	cause, err := d.enum("tenure change cause", func(b byte) bool { return b <= byte(CauseExtendedWriteLength) })
	if err != nil {
		return nil, err
	}
	p.Cause = TenureCause(cause)
	return p, d.Fixed(p.PubkeyHash[:], "pubkey hash")
}

// DecodePostConditionsBuffer reads the post-condition buffer the Hiro API stores per transaction:
// the mode byte, then the u32 count and the post-conditions, exactly as they appear on the wire.
func DecodePostConditionsBuffer(b []byte) (PostConditionMode, []PostCondition, error) {
	d := decoder{wire.NewReader(errSource, b)}
	mode, err := d.enum("post-condition mode", func(b byte) bool { return b >= 1 && b <= 3 })
	if err != nil {
		return 0, nil, err
	}
	pcs, err := d.postConditions()
	if err != nil {
		return 0, nil, err
	}
	if d.Remaining() != 0 {
		return 0, nil, d.Fail(d.Offset(), "%d trailing bytes after the post-conditions", d.Remaining())
	}
	return PostConditionMode(mode), pcs, nil
}
