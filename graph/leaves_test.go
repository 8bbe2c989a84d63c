package graph

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph/scalar"
)

// A leaf written from a pointer to its field is written as the marshaller it stands for writes
// it, into the answer's buffer or into a writer without one.
func TestLeavesWriteAsTheirMarshallers(t *testing.T) {
	strs := []string{"", "SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE", "a \"quoted\" \\ word", "tab\there\nnewline\x01\x1f", "ünïcødé ✓", "\xff\xfe invalid", "<html>&</html>", "\x7f", `back\slash`}
	ints := []int64{0, 1, -1, 99, 100, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	type pair struct {
		name      string
		got, want graphql.Marshaler
	}
	var cases []pair
	for _, s := range strs {
		cases = append(cases, pair{"string " + s, stringAt{&s}, graphql.MarshalString(s)}, pair{"uint128 " + s, uint128At{&s}, scalar.MarshalUint128(s)})
	}
	for _, n := range []string{"Transaction", "StxAssetEvent", "__Type"} {
		cases = append(cases, pair{"type name " + n, typeName(n), graphql.MarshalString(n)})
	}
	for _, i := range ints {
		cases = append(cases, pair{"int64", int64At{&i}, graphql.MarshalInt64(i)})
		if i32 := int32(i); int64(i32) == i {
			cases = append(cases, pair{"int32", int32At{&i32}, graphql.MarshalInt32(i32)})
		}
	}
	for _, v := range []bool{true, false} {
		cases = append(cases, pair{"bool", boolAt{&v}, graphql.MarshalBoolean(v)})
	}
	for _, b := range [][]byte{nil, {}, {0x00}, {0xde, 0xad, 0xbe, 0xef}, bytes.Repeat([]byte{0xab}, 32)} {
		cases = append(cases, pair{"hex", hexAt{&b}, scalar.MarshalHex(b)})
	}
	for _, c := range cases {
		var want bytes.Buffer
		c.want.MarshalGQL(&want)
		for _, w := range []interface {
			io.Writer
			Bytes() []byte
		}{&bytes.Buffer{}, &plainWriter{}} {
			c.got.MarshalGQL(w)
			if !bytes.Equal(w.Bytes(), want.Bytes()) {
				t.Errorf("%s into %T: %q, the marshaller writes %q", c.name, w, w.Bytes(), want.Bytes())
			}
		}
	}
}

// plainWriter is a writer without a buffer to append to.
type plainWriter struct{ b []byte }

func (w *plainWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *plainWriter) Bytes() []byte               { return w.b }
