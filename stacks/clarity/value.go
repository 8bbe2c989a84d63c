// Package clarity decodes, encodes and prints Clarity values in their consensus wire format
// (SIP-005 "Clarity Value Representation"), printing them exactly as the Hiro Stacks API does in
// its `repr` and function-argument `type` fields.
package clarity

import (
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/stxgraph/stxgraph/stacks/c32"
)

// TypeID is the first byte of a serialized value.
type TypeID byte

// Wire type ids.
const (
	TypeInt               TypeID = 0x00
	TypeUInt              TypeID = 0x01
	TypeBuffer            TypeID = 0x02
	TypeTrue              TypeID = 0x03
	TypeFalse             TypeID = 0x04
	TypeStandardPrincipal TypeID = 0x05
	TypeContractPrincipal TypeID = 0x06
	TypeOk                TypeID = 0x07
	TypeErr               TypeID = 0x08
	TypeNone              TypeID = 0x09
	TypeSome              TypeID = 0x0a
	TypeList              TypeID = 0x0b
	TypeTuple             TypeID = 0x0c
	TypeStringASCII       TypeID = 0x0d
	TypeStringUTF8        TypeID = 0x0e
)

// Value is one Clarity value. The concrete types are Int, UInt, Buffer, Bool, Principal,
// Response, Optional, List, Tuple, StringASCII and StringUTF8; the interface is sealed so that
// every value can be encoded and printed.
type Value interface {
	// Type is the wire type id the value encodes with.
	Type() TypeID
	// Repr is the Hiro API's `repr` string.
	Repr() string
	appendTo(b []byte) []byte
	writeRepr(w *builder)
	writeType(w *builder)
}

// Int is a signed 128-bit integer, kept as its big-endian two's-complement wire bytes.
type Int struct{ raw [16]byte }

// UInt is an unsigned 128-bit integer, kept as its big-endian wire bytes.
type UInt struct{ raw [16]byte }

// Buffer is a byte buffer.
type Buffer []byte

// Bool is true or false.
type Bool bool

// Principal is a standard principal or, when ContractName is set, a contract principal.
type Principal struct{ c32.Principal }

// Response is (ok Value) or (err Value).
type Response struct {
	Ok    bool
	Value Value
}

// Optional is none (Value nil) or (some Value).
type Optional struct{ Value Value }

// List is a list of values.
type List []Value

// TupleEntry is one named field of a tuple.
type TupleEntry struct {
	Name  string
	Value Value
}

// Tuple keeps its entries in wire order so that re-encoding reproduces the input bytes;
// printing sorts them by name.
type Tuple []TupleEntry

// StringASCII holds the raw bytes of a string-ascii value. The bytes are not validated: the
// reference decoder prints non-ASCII bytes as \xNN escapes rather than rejecting them.
type StringASCII string

// StringUTF8 holds the raw bytes of a string-utf8 value, which may be ill-formed UTF-8 in
// hostile input; printing replaces ill-formed sequences the way Rust's from_utf8_lossy does.
type StringUTF8 string

var (
	minInt  = new(big.Int).Lsh(big.NewInt(-1), 127)
	maxInt  = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	maxUInt = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	two128  = new(big.Int).Lsh(big.NewInt(1), 128)
)

// NewInt returns an int, or an error when x is outside the i128 range.
func NewInt(x *big.Int) (Int, error) {
	if x.Cmp(minInt) < 0 || x.Cmp(maxInt) > 0 {
		return Int{}, fmt.Errorf("clarity: %s is outside the int (i128) range", x)
	}
	v := new(big.Int).Set(x)
	if v.Sign() < 0 {
		v.Add(v, two128)
	}
	var out Int
	v.FillBytes(out.raw[:])
	return out, nil
}

// NewInt64 returns an int holding x.
func NewInt64(x int64) Int {
	v, _ := NewInt(big.NewInt(x)) // every int64 fits in i128
	return v
}

// NewUInt returns a uint, or an error when x is negative or above 2^128-1.
func NewUInt(x *big.Int) (UInt, error) {
	if x.Sign() < 0 || x.Cmp(maxUInt) > 0 {
		return UInt{}, fmt.Errorf("clarity: %s is outside the uint (u128) range", x)
	}
	var out UInt
	x.FillBytes(out.raw[:])
	return out, nil
}

// NewUInt64 returns a uint holding x.
func NewUInt64(x uint64) UInt {
	var out UInt
	for i := 0; i < 8; i++ {
		out.raw[15-i] = byte(x >> (8 * i))
	}
	return out
}

// Big returns the integer's value.
func (v Int) Big() *big.Int {
	x := new(big.Int).SetBytes(v.raw[:])
	if v.raw[0]&0x80 != 0 {
		x.Sub(x, two128)
	}
	return x
}

// Big returns the integer's value.
func (v UInt) Big() *big.Int { return new(big.Int).SetBytes(v.raw[:]) }

// NewBuffer returns a buffer holding a copy of b.
func NewBuffer(b []byte) Buffer { return Buffer(append([]byte{}, b...)) }

// NewBool returns true or false.
func NewBool(b bool) Bool { return Bool(b) }

// NewStandardPrincipal returns the standard principal of a.
func NewStandardPrincipal(a c32.Address) Principal {
	return Principal{c32.Principal{Address: a}}
}

// NewContractPrincipal returns the contract principal a.name, checking the name rules.
func NewContractPrincipal(a c32.Address, name string) (Principal, error) {
	if !c32.ValidContractName(name) {
		return Principal{}, fmt.Errorf("clarity: invalid contract name %q", name)
	}
	return Principal{c32.Principal{Address: a, ContractName: name}}, nil
}

// NewOk returns (ok v).
func NewOk(v Value) Response { return Response{Ok: true, Value: v} }

// NewErr returns (err v).
func NewErr(v Value) Response { return Response{Ok: false, Value: v} }

// NewSome returns (some v).
func NewSome(v Value) Optional { return Optional{Value: v} }

// NewNone returns none.
func NewNone() Optional { return Optional{} }

// NewList returns a list of the given values.
func NewList(vs ...Value) List { return List(vs) }

// NewTuple returns a tuple with entries sorted by name, the order stacks-core writes, after
// checking each name against the Clarity name rules.
func NewTuple(fields map[string]Value) (Tuple, error) {
	t := make(Tuple, 0, len(fields))
	for name, v := range fields {
		if !ValidClarityName(name) {
			return nil, fmt.Errorf("clarity: invalid tuple key %q", name)
		}
		t = append(t, TupleEntry{Name: name, Value: v})
	}
	return t.sorted(), nil
}

// NewStringASCII returns a string-ascii value.
func NewStringASCII(s string) StringASCII { return StringASCII(s) }

// NewStringUTF8 returns a string-utf8 value.
func NewStringUTF8(s string) StringUTF8 { return StringUTF8(s) }

// Encode serializes v in the consensus wire format.
func Encode(v Value) []byte { return v.appendTo(nil) }

// Append appends the serialization of v to b.
func Append(b []byte, v Value) []byte { return v.appendTo(b) }

// EncodeHex is "0x" + the lowercase hex of Encode(v), the API's `hex` field.
func EncodeHex(v Value) string { return "0x" + hex.EncodeToString(Encode(v)) }

// Type ids of the concrete types.
func (Int) Type() TypeID    { return TypeInt }
func (UInt) Type() TypeID   { return TypeUInt }
func (Buffer) Type() TypeID { return TypeBuffer }
func (v Bool) Type() TypeID {
	if v {
		return TypeTrue
	}
	return TypeFalse
}
func (v Principal) Type() TypeID {
	if v.IsContract() {
		return TypeContractPrincipal
	}
	return TypeStandardPrincipal
}
func (v Response) Type() TypeID {
	if v.Ok {
		return TypeOk
	}
	return TypeErr
}
func (v Optional) Type() TypeID {
	if v.Value == nil {
		return TypeNone
	}
	return TypeSome
}
func (List) Type() TypeID        { return TypeList }
func (Tuple) Type() TypeID       { return TypeTuple }
func (StringASCII) Type() TypeID { return TypeStringASCII }
func (StringUTF8) Type() TypeID  { return TypeStringUTF8 }
