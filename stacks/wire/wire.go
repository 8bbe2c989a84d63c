// Package wire reads the fixed-width, big-endian fields of the Stacks consensus encoding from
// untrusted bytes. Every read is bounds-checked, and every failure is a *DecodeError naming the
// byte offset where it occurred, so the Clarity and transaction decoders report errors alike.
package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/stxgraph/stxgraph/stacks/c32"
)

// DecodeError reports malformed input and the byte offset where decoding failed.
type DecodeError struct {
	Offset int
	Msg    string
	// Source names what was being decoded ("clarity", "transaction"); it prefixes Error.
	Source string
}

func (e *DecodeError) Error() string {
	if e.Source == "" {
		return fmt.Sprintf("%s at byte offset %d", e.Msg, e.Offset)
	}
	return fmt.Sprintf("%s: %s at byte offset %d", e.Source, e.Msg, e.Offset)
}

// Reader reads from a byte slice, advancing past what it reads. The zero value reads nothing.
type Reader struct {
	buf    []byte
	pos    int
	source string
}

// NewReader reads b, naming source in its errors.
func NewReader(source string, b []byte) Reader {
	return Reader{buf: b, source: source}
}

// Offset is the number of bytes read so far.
func (r *Reader) Offset() int { return r.pos }

// Remaining is the number of bytes left to read.
func (r *Reader) Remaining() int { return len(r.buf) - r.pos }

// Rest returns the unread bytes without consuming them; Skip consumes them once used.
func (r *Reader) Rest() []byte { return r.buf[r.pos:] }

// Skip consumes n bytes that the caller has read from Rest; n must not exceed Remaining.
func (r *Reader) Skip(n int) { r.pos += n }

// Fail returns a *DecodeError at offset at.
func (r *Reader) Fail(at int, format string, args ...any) error {
	return &DecodeError{Offset: at, Msg: fmt.Sprintf(format, args...), Source: r.source}
}

// Take consumes n bytes and returns them; the slice aliases the input.
func (r *Reader) Take(n int, what string) ([]byte, error) {
	if n < 0 || n > r.Remaining() {
		return nil, r.Fail(r.pos, "unexpected end of input reading %s: need %d bytes, have %d", what, n, r.Remaining())
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

// U8 reads one byte.
func (r *Reader) U8(what string) (byte, error) {
	b, err := r.Take(1, what)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// U16 reads a big-endian uint16.
func (r *Reader) U16(what string) (uint16, error) {
	b, err := r.Take(2, what)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

// U32 reads a big-endian uint32.
func (r *Reader) U32(what string) (uint32, error) {
	b, err := r.Take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

// U64 reads a big-endian uint64.
func (r *Reader) U64(what string) (uint64, error) {
	b, err := r.Take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}

// Fixed fills dst from the input.
func (r *Reader) Fixed(dst []byte, what string) error {
	b, err := r.Take(len(dst), what)
	copy(dst, b)
	return err
}

// Count reads a u32 length or element count and rejects it when even minimal elements of
// minSize bytes could not fit in the rest of the input, so a hostile count never drives
// allocation beyond the input's size.
func (r *Reader) Count(what string, minSize int) (int, error) {
	at := r.pos
	n, err := r.U32(what)
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(r.Remaining()) {
		return 0, r.Fail(at, "%s %d exceeds the %d remaining bytes", what, n, r.Remaining())
	}
	return int(n), nil
}

// Address reads a version byte and a hash160, rejecting versions that c32 cannot represent.
func (r *Reader) Address() (c32.Address, error) {
	at := r.pos
	b, err := r.Take(21, "address")
	if err != nil {
		return c32.Address{}, err
	}
	if b[0] > c32.MaxVersion {
		return c32.Address{}, r.Fail(at, "address version %d is above %d", b[0], c32.MaxVersion)
	}
	return c32.Address{Version: b[0], Hash160: [20]byte(b[1:])}, nil
}

// Name reads a 1-byte length and a name, checking it with valid.
func (r *Reader) Name(what string, valid func(string) bool) (string, error) {
	at := r.pos
	n, err := r.U8(what + " length")
	if err != nil {
		return "", err
	}
	b, err := r.Take(int(n), what)
	if err != nil {
		return "", err
	}
	if !valid(string(b)) {
		return "", r.Fail(at, "invalid %s %q", what, b)
	}
	return string(b), nil
}

// Principal reads an address and, for a contract principal, its contract name.
func (r *Reader) Principal(contract bool) (c32.Principal, error) {
	a, err := r.Address()
	if err != nil || !contract {
		return c32.Principal{Address: a}, err
	}
	name, err := r.Name("contract name", c32.ValidContractName)
	return c32.Principal{Address: a, ContractName: name}, err
}
