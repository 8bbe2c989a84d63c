package tx

import (
	"encoding/binary"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

// Encode serializes the transaction. Decoding and re-encoding reproduces the input bytes exactly.
func (t *Transaction) Encode() []byte {
	b := make([]byte, 0, 256)
	b = append(b, t.Version)
	b = binary.BigEndian.AppendUint32(b, t.ChainID)
	b = append(b, byte(t.Auth))
	b = t.Origin.appendTo(b)
	if t.Sponsor != nil {
		b = t.Sponsor.appendTo(b)
	}
	b = append(b, byte(t.AnchorMode), byte(t.PostConditionMode))
	b = appendPostConditions(b, t.PostConditions)
	return t.Payload.appendTo(b)
}

func (c *SpendingCondition) appendTo(b []byte) []byte {
	b = append(b, byte(c.HashMode))
	b = append(b, c.Signer[:]...)
	b = binary.BigEndian.AppendUint64(b, c.Nonce)
	b = binary.BigEndian.AppendUint64(b, c.Fee)
	if c.HashMode.IsSingleSig() {
		b = append(b, byte(c.KeyEncoding))
		return append(b, c.Signature[:]...)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.Fields)))
	for _, f := range c.Fields {
		b = append(b, byte(f.Type))
		if f.Type.IsSignature() {
			b = append(b, f.Signature[:]...)
		} else {
			b = append(b, f.PublicKey[:]...)
		}
	}
	return binary.BigEndian.AppendUint16(b, c.SignaturesRequired)
}

func appendPostConditions(b []byte, pcs []PostCondition) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(pcs)))
	for i := range pcs {
		b = pcs[i].appendTo(b)
	}
	return b
}

func (pc *PostCondition) appendTo(b []byte) []byte {
	b = append(b, byte(pc.Kind), byte(pc.Principal.Kind))
	if pc.Principal.Kind != PrincipalOrigin {
		b = appendAddress(b, pc.Principal.Principal.Address)
		if pc.Principal.Kind == PrincipalContract {
			b = appendName(b, pc.Principal.Principal.ContractName)
		}
	}
	switch pc.Kind {
	case AssetFungible, AssetNonFungible:
		b = appendAddress(b, pc.Asset.Contract.Address)
		b = appendName(b, pc.Asset.Contract.ContractName)
		b = appendName(b, pc.Asset.AssetName)
	}
	switch pc.Kind {
	case AssetNonFungible:
		b = clarity.Append(b, pc.AssetValue)
		return append(b, byte(pc.Code))
	case AssetPoX:
		return append(b, byte(pc.Code))
	default: // STX, fungible and staking compare an amount
		b = append(b, byte(pc.Code))
		return binary.BigEndian.AppendUint64(b, pc.Amount)
	}
}

func appendAddress(b []byte, a c32.Address) []byte {
	return append(append(b, a.Version), a.Hash160[:]...)
}

// appendName writes a 1-byte length and the name (contract, function, asset and tuple names).
func appendName(b []byte, s string) []byte { return append(append(b, byte(len(s))), s...) }

// appendPrincipal writes a payload principal in its Clarity form (0x05 standard, 0x06 contract).
func appendPrincipal(b []byte, p c32.Principal) []byte {
	return clarity.Append(b, clarity.Principal{Principal: p})
}

func (p *TokenTransfer) appendTo(b []byte) []byte {
	b = appendPrincipal(append(b, byte(p.Type())), p.Recipient)
	b = binary.BigEndian.AppendUint64(b, p.Amount)
	return append(b, p.Memo[:]...)
}

func (p *SmartContract) appendTo(b []byte) []byte {
	b = append(b, byte(p.Type()))
	if p.ClarityVersion != 0 {
		b = append(b, p.ClarityVersion)
	}
	b = appendName(b, p.Name)
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.Code)))
	return append(b, p.Code...)
}

func (p *ContractCall) appendTo(b []byte) []byte {
	b = appendAddress(append(b, byte(p.Type())), p.Contract.Address)
	b = appendName(b, p.Contract.ContractName)
	b = appendName(b, p.FunctionName)
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.Args)))
	for _, a := range p.Args {
		b = clarity.Append(b, a)
	}
	return b
}

func (p *PoisonMicroblock) appendTo(b []byte) []byte {
	return append(append(append(b, byte(p.Type())), p.Header1[:]...), p.Header2[:]...)
}

func (p *Coinbase) appendTo(b []byte) []byte {
	b = append(append(b, byte(p.Type())), p.Data[:]...)
	switch p.Type() {
	case PayloadCoinbaseToAltRecipient:
		b = appendPrincipal(b, *p.Recipient)
	case PayloadNakamotoCoinbase:
		// The recipient is a Clarity optional: none, or some(principal).
		if p.Recipient == nil {
			b = append(b, byte(clarity.TypeNone))
		} else {
			b = appendPrincipal(append(b, byte(clarity.TypeSome)), *p.Recipient)
		}
		b = append(b, p.VRFProof[:]...)
	}
	return b
}

func (p *TenureChange) appendTo(b []byte) []byte {
	b = append(b, byte(p.Type()))
	b = append(b, p.TenureConsensusHash[:]...)
	b = append(b, p.PrevTenureConsensusHash[:]...)
	b = append(b, p.BurnViewConsensusHash[:]...)
	b = append(b, p.PreviousTenureEnd[:]...)
	b = binary.BigEndian.AppendUint32(b, p.PreviousTenureBlocks)
	b = append(b, byte(p.Cause))
	return append(b, p.PubkeyHash[:]...)
}

// PostConditionsBuffer is the mode byte followed by the serialized post-conditions, the form the
// indexer can store and later render with DecodePostConditionsBuffer and PostConditionsJSON.
func (t *Transaction) PostConditionsBuffer() []byte {
	return appendPostConditions([]byte{byte(t.PostConditionMode)}, t.PostConditions)
}
