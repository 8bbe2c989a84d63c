package wire

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/stacks/c32"
)

func TestReader(t *testing.T) {
	t.Parallel()
	addr := append([]byte{22}, make([]byte, 20)...)
	addr[20] = 7
	want := c32.Address{Version: 22, Hash160: [20]byte{19: 7}}
	valid := func(s string) bool { return s != "bad" }

	tests := []struct {
		name string
		in   []byte
		read func(r *Reader) (any, error)
		want any
		// errAt is the offset the *DecodeError names, -1 when the read succeeds; then the reader
		// must have consumed end bytes.
		errAt   int
		errText string
		end     int
	}{
		{"u8", []byte{0xab}, func(r *Reader) (any, error) { return r.U8("x") }, byte(0xab), -1, "", 1},
		{"u16 big-endian", []byte{1, 2}, func(r *Reader) (any, error) { return r.U16("x") }, uint16(0x0102), -1, "", 2},
		{"u32 big-endian", []byte{1, 2, 3, 4}, func(r *Reader) (any, error) { return r.U32("x") }, uint32(0x01020304), -1, "", 4},
		{"u64 big-endian", []byte{0, 0, 0, 0, 0, 0, 1, 0}, func(r *Reader) (any, error) { return r.U64("x") }, uint64(256), -1, "", 8},
		{"empty input", nil, func(r *Reader) (any, error) { return r.U8("kind") }, nil, 0, "reading kind: need 1 bytes, have 0", 0},
		{"short u32", []byte{1, 2, 3}, func(r *Reader) (any, error) { return r.U32("len") }, nil, 0, "need 4 bytes, have 3", 0},
		{"offset after earlier reads", []byte{9, 1, 2}, func(r *Reader) (any, error) {
			r.U8("a") //nolint:errcheck // cannot fail
			return r.U32("b")
		}, nil, 1, "need 4 bytes, have 2", 1},
		{"negative take", []byte{1}, func(r *Reader) (any, error) { return r.Take(-1, "x") }, nil, 0, "need -1 bytes", 0},
		{"fixed", []byte{1, 2, 3}, func(r *Reader) (any, error) {
			var b [2]byte
			err := r.Fixed(b[:], "x")
			return b, err
		}, [2]byte{1, 2}, -1, "", 2},
		{"count fits", []byte{0, 0, 0, 2, 0, 0, 0, 0}, func(r *Reader) (any, error) { return r.Count("items", 2) }, 2, -1, "", 4},
		{"count of zero-size elements", []byte{0xff, 0xff, 0xff, 0xff}, func(r *Reader) (any, error) { return r.Count("items", 0) }, 1<<32 - 1, -1, "", 4},
		{"count beyond input", []byte{7, 0, 0, 0, 3, 0, 0, 0, 0}, func(r *Reader) (any, error) {
			r.U8("a") //nolint:errcheck // cannot fail
			return r.Count("items", 2)
		}, nil, 1, "items 3 exceeds the 4 remaining bytes", 5},
		{"hostile count", []byte{0xff, 0xff, 0xff, 0xff}, func(r *Reader) (any, error) { return r.Count("items", 1) }, nil, 0, "exceeds the 0 remaining bytes", 4},
		{"address", addr, func(r *Reader) (any, error) { return r.Address() }, want, -1, "", 21},
		{"address version above c32", append([]byte{32}, addr[1:]...), func(r *Reader) (any, error) { return r.Address() }, nil, 0, "address version 32 is above 31", 21},
		{"name", []byte{3, 'f', 'o', 'o', 0}, func(r *Reader) (any, error) { return r.Name("name", valid) }, "foo", -1, "", 4},
		{"empty name", []byte{0}, func(r *Reader) (any, error) { return r.Name("name", func(string) bool { return true }) }, "", -1, "", 1},
		{"invalid name", []byte{1, 3, 'b', 'a', 'd'}, func(r *Reader) (any, error) {
			r.U8("a") //nolint:errcheck // cannot fail
			return r.Name("name", valid)
		}, nil, 1, `invalid name "bad"`, 5},
		{"name longer than input", []byte{4, 'a'}, func(r *Reader) (any, error) { return r.Name("name", valid) }, nil, 1, "reading name: need 4 bytes, have 1", 1},
		{"name without length", nil, func(r *Reader) (any, error) { return r.Name("name", valid) }, nil, 0, "reading name length", 0},
		{"standard principal", slices.Concat(addr, []byte{1}), func(r *Reader) (any, error) { return r.Principal(false) }, c32.Principal{Address: want}, -1, "", 21},
		{"contract principal", slices.Concat(addr, []byte{2, 'a', '1'}), func(r *Reader) (any, error) { return r.Principal(true) },
			c32.Principal{Address: want, ContractName: "a1"}, -1, "", 24},
		{"contract principal with invalid name", slices.Concat(addr, []byte{2, '1', 'a'}), func(r *Reader) (any, error) { return r.Principal(true) },
			nil, 21, `invalid contract name "1a"`, 24},
		{"contract principal without name", addr, func(r *Reader) (any, error) { return r.Principal(true) }, nil, 21, "contract name length", 21},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := NewReader("test", tc.in)
			got, err := tc.read(&r)
			if tc.errAt < 0 {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("read %#v, want %#v", got, tc.want)
				}
			} else {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("error %v (%T), want a *DecodeError", err, err)
				}
				if de.Offset != tc.errAt || de.Source != "test" || !strings.Contains(de.Msg, tc.errText) {
					t.Errorf("error %+v, want offset %d, source test, message containing %q", de, tc.errAt, tc.errText)
				}
				if !strings.HasPrefix(err.Error(), "test: ") || !strings.HasSuffix(err.Error(), " at byte offset "+strconv.Itoa(tc.errAt)) {
					t.Errorf("error text %q", err)
				}
			}
			if r.Offset() != tc.end || r.Remaining() != len(tc.in)-tc.end || len(r.Rest()) != r.Remaining() {
				t.Errorf("offset %d, remaining %d after the read; want offset %d of %d", r.Offset(), r.Remaining(), tc.end, len(tc.in))
			}
		})
	}
}

func TestZeroReaderAndSkip(t *testing.T) {
	t.Parallel()
	var r Reader
	if _, err := r.U8("x"); err == nil || err.Error() != "unexpected end of input reading x: need 1 bytes, have 0 at byte offset 0" {
		t.Errorf("zero reader: %v", err)
	}
	r = NewReader("", []byte{1, 2, 3})
	r.Skip(2)
	if b, err := r.U8("x"); err != nil || b != 3 || r.Remaining() != 0 {
		t.Errorf("after Skip(2): %d, %v, %d remaining", b, err, r.Remaining())
	}
}
