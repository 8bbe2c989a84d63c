package scalar

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestUint128(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
		ok   bool
	}{
		{"340282366920938463463374607431768211455", "340282366920938463463374607431768211455", true},
		{"340282366920938463463374607431768211456", "", false},
		{"-1", "", false},
		{"+1", "", false},
		{"1.5", "", false},
		{int64(42), "42", true},
		{json.Number("340282366920938463463374607431768211455"), "340282366920938463463374607431768211455", true},
		{json.Number("1e3"), "", false},
		{1.5, "", false},
	} {
		got, err := UnmarshalUint128(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("UnmarshalUint128(%v) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	var buf bytes.Buffer
	MarshalUint128("340282366920938463463374607431768211455").MarshalGQL(&buf)
	if buf.String() != `"340282366920938463463374607431768211455"` {
		t.Errorf("MarshalUint128 = %s", buf.String())
	}
}

func TestHex(t *testing.T) {
	var buf bytes.Buffer
	MarshalHex(nil).MarshalGQL(&buf)
	if buf.String() != `"0x"` {
		t.Errorf("empty hex = %s, want \"0x\"", buf.String())
	}
	// Written after what the answer holds already, into its buffer's free space or not, and into
	// a writer without one.
	var plain strings.Builder
	for _, w := range []io.Writer{&buf, &plain} {
		for _, b := range [][]byte{{0x00, 0xab}, bytes.Repeat([]byte{0xfe}, 200)} {
			MarshalHex(b).MarshalGQL(w)
		}
	}
	want := `"0x"` + `"0x00ab""0x` + strings.Repeat("fe", 200) + `"`
	if buf.String() != want || plain.String() != want[4:] {
		t.Errorf("hex written after other values = %s and %s, want %s", buf.String(), plain.String(), want)
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{{"0xABcd", true}, {"abcd", true}, {"0xabc", false}, {"0xzz", false}} {
		b, err := UnmarshalHex(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("UnmarshalHex(%q) err = %v", tc.in, err)
		}
		if tc.ok && !bytes.Equal(b, []byte{0xab, 0xcd}) {
			t.Errorf("UnmarshalHex(%q) = %x", tc.in, b)
		}
	}
}
