package clarity

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/stxgraph/stxgraph/stacks/wire"
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack. stacks-core never produces
// values deeper than 32 (MAX_TYPE_DEPTH); 64 leaves room without risk.
const MaxDepth = 64

// maxPrealloc caps the capacity reserved from a declared element count; longer lists grow as
// their elements actually decode, so a lying count costs nothing.
const maxPrealloc = 64

// maxClarityNameLen is the wire limit on tuple keys, function names and asset names.
const maxClarityNameLen = 128

var clarityNameRE = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9]|[-_!?+<>=/*])*$|^[-+=/*]$|^[<>]=?$`)

// ValidClarityName reports whether s is a valid Clarity name (tuple key, function or asset name).
func ValidClarityName(s string) bool {
	return len(s) >= 1 && len(s) <= maxClarityNameLen && clarityNameRE.MatchString(s)
}

// DecodeError reports malformed input and the byte offset where decoding failed. Its Error
// reads "clarity: <Msg> at byte offset <Offset>".
type DecodeError = wire.DecodeError

// errSource prefixes the messages of this package's DecodeErrors.
const errSource = "clarity"

// Decode reads one value from the start of b and reports how many bytes it used. Trailing bytes
// are left to the caller, as in a transaction's argument list.
func Decode(b []byte) (Value, int, error) {
	d := decoder{wire.NewReader(errSource, b)}
	v, err := d.value(0)
	if err != nil {
		return nil, 0, err
	}
	return v, d.Offset(), nil
}

// DecodeHex decodes a hex string (with or without "0x") holding exactly one value.
func DecodeHex(s string) (Value, error) {
	b, err := ParseHex(s)
	if err != nil {
		return nil, err
	}
	v, n, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, &DecodeError{Offset: n, Msg: fmt.Sprintf("%d trailing bytes after the value", len(b)-n), Source: errSource}
	}
	return v, nil
}

// ParseHex decodes hex with an optional "0x" prefix, naming the offending character's position
// (counted in the input string) when it fails.
func ParseHex(s string) ([]byte, error) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	prefix := len(s) - len(body)
	for i := 0; i < len(body); i++ {
		if !isHexDigit(body[i]) {
			return nil, fmt.Errorf("invalid hex character %q at offset %d", body[i], prefix+i)
		}
	}
	if len(body)%2 != 0 {
		return nil, fmt.Errorf("odd number of hex digits (%d) at offset %d", len(body), len(s))
	}
	return hex.DecodeString(body)
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// decoder reads values; the wire.Reader supplies the bounded reads and errors.
type decoder struct {
	wire.Reader
}

func (d *decoder) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, d.Fail(d.Offset(), "values nested deeper than %d", MaxDepth)
	}
	at := d.Offset()
	t, err := d.U8("type id")
	if err != nil {
		return nil, err
	}
	switch TypeID(t) {
	case TypeInt, TypeUInt:
		return d.integer(TypeID(t))
	case TypeBuffer:
		b, err := d.sized("buffer length")
		return Buffer(b), err
	case TypeTrue, TypeFalse:
		return Bool(TypeID(t) == TypeTrue), nil
	case TypeStandardPrincipal, TypeContractPrincipal:
		p, err := d.Principal(TypeID(t) == TypeContractPrincipal)
		return Principal{p}, err
	case TypeOk, TypeErr:
		inner, err := d.value(depth + 1)
		return Response{Ok: TypeID(t) == TypeOk, Value: inner}, err
	case TypeNone:
		return Optional{}, nil
	case TypeSome:
		inner, err := d.value(depth + 1)
		return Optional{Value: inner}, err
	case TypeList:
		return d.list(depth)
	case TypeTuple:
		return d.tuple(depth)
	case TypeStringASCII:
		b, err := d.sized("string-ascii length")
		return StringASCII(b), err
	case TypeStringUTF8:
		b, err := d.sized("string-utf8 length")
		return StringUTF8(b), err
	default:
		return nil, d.Fail(at, "unknown Clarity type id 0x%02x", t)
	}
}

func (d *decoder) integer(t TypeID) (Value, error) {
	b, err := d.Take(16, "128-bit integer")
	if err != nil {
		return nil, err
	}
	if t == TypeInt {
		return Int{raw: [16]byte(b)}, nil
	}
	return UInt{raw: [16]byte(b)}, nil
}

// sized reads a u32 byte length and that many bytes, copied so the value never aliases the input.
func (d *decoder) sized(what string) ([]byte, error) {
	n, err := d.Count(what, 1)
	if err != nil {
		return nil, err
	}
	b, err := d.Take(n, "bytes")
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b...), nil
}

func (d *decoder) list(depth int) (Value, error) {
	n, err := d.Count("list length", 1)
	if err != nil {
		return nil, err
	}
	l := make(List, 0, min(n, maxPrealloc))
	for range n {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	return l, nil
}

// tuple reads the entries in wire order. Duplicate keys are rejected as stacks-core does; the
// order is not enforced because the API decoder accepts (and sorts for printing) unsorted keys.
func (d *decoder) tuple(depth int) (Value, error) {
	n, err := d.Count("tuple length", 3) // name length, at least one name byte, a type id
	if err != nil {
		return nil, err
	}
	t := make(Tuple, 0, min(n, maxPrealloc))
	var seen map[string]bool // only built once keys arrive out of order
	for i := range n {
		at := d.Offset()
		name, err := d.Name("tuple key", ValidClarityName)
		if err != nil {
			return nil, err
		}
		if seen == nil && i > 0 && name <= t[i-1].Name {
			seen = make(map[string]bool, n)
			for _, e := range t {
				seen[e.Name] = true
			}
		}
		if seen != nil {
			if seen[name] {
				return nil, d.Fail(at, "duplicate tuple key %q", name)
			}
			seen[name] = true
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		t = append(t, TupleEntry{Name: name, Value: v})
	}
	return t, nil
}
