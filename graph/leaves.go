package graph

import (
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph/scalar"
)

// Leaf values written from their parent's struct field. gqlgen's marshallers (MarshalString,
// MarshalInt64, …) return a closure over a copy of the value, one allocation per field of every
// row; these hold a pointer to the field instead, which an interface holds without allocating.
// cmd/leafpath makes the shortened field functions of a parent given by pointer return them; the
// rows they point into are not written once read. Each writes what the marshaller it stands for
// writes.

// typeName is an object's __typename: a constant, which an interface holds without allocating.
// A GraphQL name needs no escaping.
type typeName string

func (n typeName) MarshalGQL(w io.Writer) { writeQuoted(w, string(n)) }

type hexAt struct{ p *[]byte }

func (v hexAt) MarshalGQL(w io.Writer) { scalar.WriteHex(w, *v.p) }

type uint128At struct{ p *string }

func (v uint128At) MarshalGQL(w io.Writer) { scalar.WriteUint128(w, *v.p) }

type stringAt struct{ p *string }

// MarshalGQL writes a string without characters to escape (as most are: addresses, names,
// amounts) between quotes itself, and any other through gqlgen's marshaller, whose escaping it
// then is.
func (v stringAt) MarshalGQL(w io.Writer) {
	if s := *v.p; plainString(s) {
		writeQuoted(w, s)
	} else {
		graphql.MarshalString(s).MarshalGQL(w)
	}
}

// writeQuoted writes s, which needs no escaping, between quotes.
func writeQuoted(w io.Writer, s string) {
	out := append(scalar.AvailableBuffer(w), '"')
	out = append(out, s...)
	w.Write(append(out, '"'))
}

// plainString reports whether s holds nothing that gqlgen's marshaller escapes: control
// characters, quotes and backslashes.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

type int64At struct{ p *int64 }

func (v int64At) MarshalGQL(w io.Writer) {
	w.Write(strconv.AppendInt(scalar.AvailableBuffer(w), *v.p, 10))
}

type boolAt struct{ p *bool }

func (v boolAt) MarshalGQL(w io.Writer) {
	w.Write(strconv.AppendBool(scalar.AvailableBuffer(w), *v.p))
}

type int32At struct{ p *int32 }

func (v int32At) MarshalGQL(w io.Writer) {
	w.Write(strconv.AppendInt(scalar.AvailableBuffer(w), int64(*v.p), 10))
}
