// Package scalar implements stxgraph's custom GraphQL scalars: Hex (byte strings as 0x-prefixed
// lower-case hex) and Uint128 (unsigned amounts up to 2^128-1 as decimal strings, never floats).
package scalar

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph"
)

// MarshalHex renders bytes as "0x…"; an empty value renders as "0x".
func MarshalHex(b []byte) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { WriteHex(w, b) })
}

// WriteHex writes b as MarshalHex renders it. Block lists render thousands of ids: they are
// written in the free space of the answer's buffer (a bytes.Buffer, which the executor writes
// into), not in one of their own each.
func WriteHex(w io.Writer, b []byte) {
	out := AvailableBuffer(w)
	out = append(out, `"0x`...)
	out = hex.AppendEncode(out, b)
	out = append(out, '"')
	w.Write(out) //nolint:errcheck // gqlgen's writers report errors on the response
}

// AvailableBuffer is the free space of w's buffer when it has one (the answer's buffer is a
// bytes.Buffer), for a value to be appended to and written back without a buffer of its own.
func AvailableBuffer(w io.Writer) []byte {
	if buf, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		return buf.AvailableBuffer()
	}
	return nil
}

// UnmarshalHex accepts hex with or without the 0x prefix. A value that is not is the caller's
// bad input.
func UnmarshalHex(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "Hex must be a string, got %T", v)
	}
	b, err := ParseHex(s)
	if err != nil {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "%v", err)
	}
	return b, nil
}

// ParseHex decodes a hex string with an optional 0x prefix.
func ParseHex(s string) ([]byte, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	b, err := hex.DecodeString(t)
	if err != nil {
		return nil, fmt.Errorf("invalid hex %q: %v", s, err)
	}
	return b, nil
}

var maxUint128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// MarshalUint128 renders a decimal amount string as a JSON string.
func MarshalUint128(s string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { WriteUint128(w, s) })
}

// WriteUint128 writes s as MarshalUint128 renders it.
func WriteUint128(w io.Writer, s string) {
	w.Write(strconv.AppendQuote(AvailableBuffer(w), s)) //nolint:errcheck // as in WriteHex
}

// UnmarshalUint128 accepts a decimal string (or a JSON integer) within 0..2^128-1; another value
// is the caller's bad input.
func UnmarshalUint128(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number: // variables decoded with UseNumber
		s = x.String()
	case int, int32, int64:
		s = fmt.Sprint(x)
	default:
		return "", stxgraph.Errorf(stxgraph.EINVALID, "Uint128 must be a decimal string, got %T", v)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 || n.Cmp(maxUint128) > 0 || strings.HasPrefix(s, "+") {
		return "", stxgraph.Errorf(stxgraph.EINVALID, "Uint128 must be a decimal integer between 0 and 2^128-1, got %q", s)
	}
	return n.String(), nil
}
