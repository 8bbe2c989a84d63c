package clarity

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

type vectorFile struct {
	ClarityValues []struct {
		Description   string `json:"description"`
		Hex           string `json:"hex"`
		Repr          string `json:"repr"`
		TypeSignature string `json:"type_signature"`
		TypeID        int    `json:"type_id"`
	} `json:"clarity_values"`
	ContractIdentifiers []struct {
		ContractID string `json:"contract_id"`
		Hex        string `json:"clarity_contract_principal_hex"`
		Repr       string `json:"repr"`
	} `json:"contract_identifiers"`
}

func loadVectors(tb testing.TB) vectorFile {
	tb.Helper()
	raw, err := os.ReadFile(fixtures.Reference(tb, "stacks-vectors.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		tb.Fatal(err)
	}
	if len(vf.ClarityValues) == 0 {
		tb.Fatal("no clarity_values in stacks-vectors.json")
	}
	return vf
}

func mustHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := ParseHex(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestVectors checks every hex→repr/type pair of the reference, and that re-encoding the decoded
// value gives back the bytes it was decoded from.
func TestVectors(t *testing.T) {
	for _, vec := range loadVectors(t).ClarityValues {
		t.Run(vec.Description, func(t *testing.T) {
			b := mustHex(t, vec.Hex)
			v, n, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Repr(); got != vec.Repr {
				t.Errorf("repr = %s, want %s", got, vec.Repr)
			}
			if got := TypeString(v); got != vec.TypeSignature {
				t.Errorf("type = %s, want %s", got, vec.TypeSignature)
			}
			if int(v.Type()) != vec.TypeID {
				t.Errorf("type id = %#x, want %#x", v.Type(), vec.TypeID)
			}
			if enc := Encode(v); !bytes.Equal(enc, b[:n]) {
				t.Errorf("re-encoded %x, want %x", enc, b[:n])
			}
			// DecodeHex insists on the whole input; only the trailing-bytes vector has extra.
			_, err = DecodeHex(vec.Hex)
			if (n == len(b)) != (err == nil) {
				t.Errorf("DecodeHex error = %v with %d of %d bytes consumed", err, n, len(b))
			}
		})
	}
}

func TestContractIdentifierVectors(t *testing.T) {
	for _, vec := range loadVectors(t).ContractIdentifiers {
		v, err := DecodeHex(vec.Hex)
		if err != nil {
			t.Fatalf("%s: %v", vec.ContractID, err)
		}
		if v.Repr() != vec.Repr {
			t.Errorf("%s: repr %s, want %s", vec.ContractID, v.Repr(), vec.Repr)
		}
		p, err := c32.ParsePrincipal(vec.ContractID)
		if err != nil {
			t.Fatal(err)
		}
		built, err := NewContractPrincipal(p.Address, p.ContractName)
		if err != nil {
			t.Fatal(err)
		}
		if got := EncodeHex(built); got != vec.Hex {
			t.Errorf("%s: encoded %s, want %s", vec.ContractID, got, vec.Hex)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := strings.Repeat("0a", MaxDepth+1) + "09"
	tests := []struct {
		name, hex, msg string
		offset         int
	}{
		{"empty", "", "end of input reading type id", 0},
		{"unknown type", "0f", "unknown Clarity type id 0x0f", 0},
		{"unknown nested type", "070a0f", "unknown Clarity type id 0x0f", 2},
		{"short int", "0000ff", "need 16 bytes, have 2", 1},
		{"buffer longer than input", "0200000005aabb", "buffer length 5 exceeds the 2 remaining bytes", 1},
		{"huge list count", "0bffffffff03", "list length 4294967295 exceeds", 1},
		{"huge list count vs input", "0b0000000203", "list length 2 exceeds the 1 remaining bytes", 1},
		{"truncated nested list", "0b000000020b0000000103", "end of input reading type id", 11},
		{"too deep", deep, "nested deeper than 64", MaxDepth + 1},
		{"address version 32", "0520" + strings.Repeat("00", 20), "address version 32", 1},
		{"bad contract name", "0616" + strings.Repeat("00", 20) + "03312d61", `invalid contract name "1-a"`, 22},
		{"empty contract name", "0616" + strings.Repeat("00", 20) + "00", `invalid contract name ""`, 22},
		{"bad tuple key", "0c00000001012003", `invalid tuple key " "`, 5},
		{"duplicate tuple key", "0c00000002016103016103", `duplicate tuple key "a"`, 8},
		{"duplicate key after unsorted keys", "0c00000003016203016103016203", `duplicate tuple key "b"`, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := hex.DecodeString(tt.hex)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = Decode(b)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if !strings.Contains(de.Msg, tt.msg) || de.Offset != tt.offset {
				t.Errorf("got %q at %d, want %q at %d", de.Msg, de.Offset, tt.msg, tt.offset)
			}
		})
	}
}

func TestParseHex(t *testing.T) {
	tests := []struct{ in, err string }{
		{"0x0703", ""},
		{"0703", ""},
		{"0X0703", ""},
		{"0x07g3", `invalid hex character 'g' at offset 4`},
		{"070", "odd number of hex digits (3) at offset 3"},
	}
	for _, tt := range tests {
		_, err := ParseHex(tt.in)
		if (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
			t.Errorf("ParseHex(%q) error = %v, want %q", tt.in, err, tt.err)
		}
	}
}

func TestConstructors(t *testing.T) {
	addr, err := c32.ParseAddress("ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ")
	if err != nil {
		t.Fatal(err)
	}
	minI128, _ := new(big.Int).SetString("-170141183460469231731687303715884105728", 10)
	maxU128, _ := new(big.Int).SetString("340282366920938463463374607431768211455", 10)
	i, err := NewInt(minI128)
	if err != nil {
		t.Fatal(err)
	}
	u, err := NewUInt(maxU128)
	if err != nil {
		t.Fatal(err)
	}
	tup, err := NewTuple(map[string]Value{"b": NewUInt64(2), "a": NewUInt64(1)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		v         Value
		hex, repr string
	}{
		{i, "0x0080000000000000000000000000000000", "-170141183460469231731687303715884105728"},
		{NewInt64(-5), "0x00fffffffffffffffffffffffffffffffb", "-5"},
		{u, "0x01ffffffffffffffffffffffffffffffff", "u340282366920938463463374607431768211455"},
		{tup, "0x0c000000020161010000000000000000000000000000000101620100000000000000000000000000000002", "(tuple (a u1) (b u2))"},
		{NewList(), "0x0b00000000", "(list)"},
		{NewOk(NewSome(NewNone())), "0x070a09", "(ok (some none))"},
		{NewErr(NewBool(false)), "0x0804", "(err false)"},
		{NewBuffer([]byte{0xde, 0xad}), "0x0200000002dead", "0xdead"},
		{NewStandardPrincipal(addr), "0x051aa46ff88886c2ef9762d970b4d2c63678835bd39d", "'ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ"},
		{NewStringASCII("a'b"), "0x0d00000003612762", `"a\'b"`},
		{NewStringUTF8("é"), "0x0e00000002c3a9", `u"\u{c3a9}"`},
	}
	for _, tt := range tests {
		if got := EncodeHex(tt.v); got != tt.hex {
			t.Errorf("%s: encoded %s, want %s", tt.repr, got, tt.hex)
		}
		if got := tt.v.Repr(); got != tt.repr {
			t.Errorf("repr %s, want %s", got, tt.repr)
		}
	}
	if _, err := NewUInt(new(big.Int).Add(maxU128, big.NewInt(1))); err == nil {
		t.Error("NewUInt accepted 2^128")
	}
	if _, err := NewUInt(big.NewInt(-1)); err == nil {
		t.Error("NewUInt accepted -1")
	}
	if _, err := NewInt(new(big.Int).Sub(minI128, big.NewInt(1))); err == nil {
		t.Error("NewInt accepted -2^127-1")
	}
	if _, err := NewTuple(map[string]Value{"bad key": NewBool(true)}); err == nil {
		t.Error("NewTuple accepted a key with a space")
	}
	if _, err := NewContractPrincipal(addr, "9lives"); err == nil {
		t.Error("NewContractPrincipal accepted a name starting with a digit")
	}
}

func TestIntegerBig(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "9223372036854775807", "-9223372036854775808", "18446744073709551616", "-18446744073709551617"} {
		x, _ := new(big.Int).SetString(s, 10)
		v, err := NewInt(x)
		if err != nil {
			t.Fatal(err)
		}
		if v.String() != s || v.Big().Cmp(x) != 0 {
			t.Errorf("int %s printed as %s", s, v.String())
		}
	}
}

func TestLossyString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello", "hello"},
		{"h\xc3\xa9", "hé"},
		{"\xe2\x82A", "\uFFFDA"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x9a\x80", "🚀"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		if got := LossyString([]byte(tt.in)); got != tt.want {
			t.Errorf("LossyString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
