package clarity

import (
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

type builder = strings.Builder

// Repr returns the API's `repr` string of v.
func Repr(v Value) string {
	var w builder
	v.writeRepr(&w)
	return w.String()
}

// TypeString returns the type name the API shows for a function argument whose ABI is unknown
// (stacks-encoding-native-js decodeClarityValueToTypeName).
func TypeString(v Value) string {
	var w builder
	v.writeType(&w)
	return w.String()
}

func (v Int) Repr() string         { return Repr(v) }
func (v UInt) Repr() string        { return Repr(v) }
func (v Buffer) Repr() string      { return Repr(v) }
func (v Bool) Repr() string        { return Repr(v) }
func (v Principal) Repr() string   { return Repr(v) }
func (v Response) Repr() string    { return Repr(v) }
func (v Optional) Repr() string    { return Repr(v) }
func (v List) Repr() string        { return Repr(v) }
func (v Tuple) Repr() string       { return Repr(v) }
func (v StringASCII) Repr() string { return Repr(v) }
func (v StringUTF8) Repr() string  { return Repr(v) }

// String returns the decimal value; small values avoid math/big.
func (v Int) String() string {
	hi, lo := binary.BigEndian.Uint64(v.raw[:8]), binary.BigEndian.Uint64(v.raw[8:])
	switch {
	case hi == 0 && lo <= 1<<63-1:
		return strconv.FormatUint(lo, 10)
	case hi == ^uint64(0) && lo >= 1<<63:
		return "-" + strconv.FormatUint(-lo, 10)
	}
	return v.Big().String()
}

// String returns the decimal value; values below 2^64 avoid math/big.
func (v UInt) String() string {
	if binary.BigEndian.Uint64(v.raw[:8]) == 0 {
		return strconv.FormatUint(binary.BigEndian.Uint64(v.raw[8:]), 10)
	}
	return v.Big().String()
}

func (v Int) writeRepr(w *builder)  { w.WriteString(v.String()) }
func (v UInt) writeRepr(w *builder) { w.WriteString("u"); w.WriteString(v.String()) }
func (v Buffer) writeRepr(w *builder) {
	w.WriteString("0x")
	w.WriteString(hex.EncodeToString(v))
}
func (v Bool) writeRepr(w *builder) { w.WriteString(strconv.FormatBool(bool(v))) }
func (v Principal) writeRepr(w *builder) {
	w.WriteByte('\'')
	w.WriteString(v.String())
}

func (v Response) writeRepr(w *builder) {
	if v.Ok {
		w.WriteString("(ok ")
	} else {
		w.WriteString("(err ")
	}
	v.Value.writeRepr(w)
	w.WriteByte(')')
}

func (v Optional) writeRepr(w *builder) {
	if v.Value == nil {
		w.WriteString("none")
		return
	}
	w.WriteString("(some ")
	v.Value.writeRepr(w)
	w.WriteByte(')')
}

func (v List) writeRepr(w *builder) {
	w.WriteString("(list")
	for _, e := range v {
		w.WriteByte(' ')
		e.writeRepr(w)
	}
	w.WriteByte(')')
}

// sorted returns the entries ordered by key bytes, as the API prints them.
func (v Tuple) sorted() Tuple {
	s := slices.Clone(v)
	slices.SortStableFunc(s, func(a, b TupleEntry) int { return strings.Compare(a.Name, b.Name) })
	return s
}

func (v Tuple) writeRepr(w *builder) { v.write(w, Value.writeRepr) }

// write prints the entries in key order as "(tuple (key elem) ...)", each value printed by elem;
// repr and type strings share this shape.
func (v Tuple) write(w *builder, elem func(Value, *builder)) {
	w.WriteString("(tuple")
	for _, e := range v.sorted() {
		w.WriteString(" (")
		w.WriteString(e.Name)
		w.WriteByte(' ')
		elem(e.Value, w)
		w.WriteByte(')')
	}
	w.WriteByte(')')
}

func (v StringASCII) writeRepr(w *builder) {
	w.WriteByte('"')
	for i := 0; i < len(v); i++ {
		escapeASCII(w, v[i])
	}
	w.WriteByte('"')
}

func (v StringUTF8) writeRepr(w *builder) {
	w.WriteString(`u"`)
	forEachLossy(string(v), func(char string) {
		if len(char) == 1 {
			escapeASCII(w, char[0])
			return
		}
		// Multi-byte characters print as the hex of their UTF-8 bytes, not their code point.
		w.WriteString(`\u{`)
		w.WriteString(hex.EncodeToString([]byte(char)))
		w.WriteByte('}')
	})
	w.WriteByte('"')
}

// escapeASCII follows Rust's u8::escape_ascii (std::ascii::escape_default), which the API's
// printer uses; note that it escapes the single quote too.
func escapeASCII(w *builder, c byte) {
	const digits = "0123456789abcdef"
	switch c {
	case '\t':
		w.WriteString(`\t`)
	case '\r':
		w.WriteString(`\r`)
	case '\n':
		w.WriteString(`\n`)
	case '\\', '\'', '"':
		w.WriteByte('\\')
		w.WriteByte(c)
	default:
		if c >= 0x20 && c < 0x7f {
			w.WriteByte(c)
			return
		}
		w.WriteString(`\x`)
		w.WriteByte(digits[c>>4])
		w.WriteByte(digits[c&15])
	}
}

func (Int) writeType(w *builder)       { w.WriteString("int") }
func (UInt) writeType(w *builder)      { w.WriteString("uint") }
func (Bool) writeType(w *builder)      { w.WriteString("bool") }
func (Principal) writeType(w *builder) { w.WriteString("principal") }

func (v Buffer) writeType(w *builder) { sizedType(w, "buff", len(v)) }

func (v StringASCII) writeType(w *builder) { sizedType(w, "string-ascii", len(v)) }

// The API sizes string-utf8 as 4 bytes per (lossily decoded) character.
func (v StringUTF8) writeType(w *builder) {
	chars := 0
	forEachLossy(string(v), func(string) { chars++ })
	sizedType(w, "string-utf8", 4*chars)
}

func sizedType(w *builder, name string, n int) {
	w.WriteByte('(')
	w.WriteString(name)
	w.WriteByte(' ')
	w.WriteString(strconv.Itoa(n))
	w.WriteByte(')')
}

const unknownType = "UnknownType"

func (v Response) writeType(w *builder) {
	w.WriteString("(response ")
	if v.Ok {
		v.Value.writeType(w)
		w.WriteString(" " + unknownType)
	} else {
		w.WriteString(unknownType + " ")
		v.Value.writeType(w)
	}
	w.WriteByte(')')
}

func (v Optional) writeType(w *builder) {
	w.WriteString("(optional ")
	if v.Value == nil {
		w.WriteString(unknownType)
	} else {
		v.Value.writeType(w)
	}
	w.WriteByte(')')
}

// A list's element type is taken from its first element, as the API does.
func (v List) writeType(w *builder) {
	w.WriteString("(list ")
	w.WriteString(strconv.Itoa(len(v)))
	w.WriteByte(' ')
	if len(v) == 0 {
		w.WriteString(unknownType)
	} else {
		v[0].writeType(w)
	}
	w.WriteByte(')')
}

func (v Tuple) writeType(w *builder) { v.write(w, Value.writeType) }
