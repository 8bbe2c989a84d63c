package clarity

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/stxgraph/stxgraph/stacks/c32"
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

// DecodeError reports malformed input and the byte offset where decoding failed.
type DecodeError struct {
	Offset int
	Msg    string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("clarity: %s at byte offset %d", e.Msg, e.Offset)
}

// Decode reads one value from the start of b and reports how many bytes it used. Trailing bytes
// are left to the caller, as in a transaction's argument list.
func Decode(b []byte) (Value, int, error) {
	d := decoder{buf: b}
	v, err := d.value(0)
	if err != nil {
		return nil, 0, err
	}
	return v, d.pos, nil
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
		return nil, &DecodeError{Offset: n, Msg: fmt.Sprintf("%d trailing bytes after the value", len(b)-n)}
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

type decoder struct {
	buf []byte
	pos int
}

func (d *decoder) fail(at int, format string, args ...any) error {
	return &DecodeError{Offset: at, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) remaining() int { return len(d.buf) - d.pos }

func (d *decoder) take(n int, what string) ([]byte, error) {
	if n < 0 || n > d.remaining() {
		return nil, d.fail(d.pos, "unexpected end of input reading %s: need %d bytes, have %d", what, n, d.remaining())
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *decoder) byte(what string) (byte, error) {
	b, err := d.take(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// length reads a u32 length or count and rejects it when even minimal elements of minSize bytes
// could not fit in the rest of the input; this keeps allocations proportional to the input.
func (d *decoder) length(what string, minSize int) (int, error) {
	at := d.pos
	b, err := d.take(4, what)
	if err != nil {
		return 0, err
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n)*uint64(minSize) > uint64(d.remaining()) {
		return 0, d.fail(at, "%s %d exceeds the %d remaining bytes", what, n, d.remaining())
	}
	return int(n), nil
}

func (d *decoder) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return nil, d.fail(d.pos, "values nested deeper than %d", MaxDepth)
	}
	at := d.pos
	t, err := d.byte("type id")
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
		p, err := d.principal(TypeID(t) == TypeContractPrincipal)
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
		return nil, d.fail(at, "unknown Clarity type id 0x%02x", t)
	}
}

func (d *decoder) integer(t TypeID) (Value, error) {
	b, err := d.take(16, "128-bit integer")
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
	n, err := d.length(what, 1)
	if err != nil {
		return nil, err
	}
	b, err := d.take(n, "bytes")
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b...), nil
}

// Address reads a version byte and a hash160, rejecting versions that c32 cannot represent.
func (d *decoder) address() (c32.Address, error) {
	at := d.pos
	b, err := d.take(21, "address")
	if err != nil {
		return c32.Address{}, err
	}
	if b[0] > c32.MaxVersion {
		return c32.Address{}, d.fail(at, "address version %d is above %d", b[0], c32.MaxVersion)
	}
	return c32.Address{Version: b[0], Hash160: [20]byte(b[1:])}, nil
}

func (d *decoder) principal(contract bool) (c32.Principal, error) {
	a, err := d.address()
	if err != nil || !contract {
		return c32.Principal{Address: a}, err
	}
	name, err := d.name("contract name", c32.ValidContractName)
	return c32.Principal{Address: a, ContractName: name}, err
}

// name reads a 1-byte length and a name, checking it with valid.
func (d *decoder) name(what string, valid func(string) bool) (string, error) {
	at := d.pos
	n, err := d.byte(what + " length")
	if err != nil {
		return "", err
	}
	b, err := d.take(int(n), what)
	if err != nil {
		return "", err
	}
	if !valid(string(b)) {
		return "", d.fail(at, "invalid %s %q", what, b)
	}
	return string(b), nil
}

func (d *decoder) list(depth int) (Value, error) {
	n, err := d.length("list length", 1)
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
	n, err := d.length("tuple length", 3) // name length, at least one name byte, a type id
	if err != nil {
		return nil, err
	}
	t := make(Tuple, 0, min(n, maxPrealloc))
	var seen map[string]bool // only built once keys arrive out of order
	for i := range n {
		at := d.pos
		name, err := d.name("tuple key", ValidClarityName)
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
				return nil, d.fail(at, "duplicate tuple key %q", name)
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
