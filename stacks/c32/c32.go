// Package c32 implements Stacks c32check encoding: Crockford base32 with a double-SHA-256 checksum,
// Stacks addresses ("S" + version character + c32 of hash160 and checksum) and principals
// (an address, optionally followed by "." and a contract name).
package c32

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
)

// alphabet is Crockford's base32 alphabet as Stacks uses it.
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Address versions. Single-sig P2PKH accounts use the P2PKH versions; every other hash mode
// (multisig and the segwit-compatible ones) uses the P2SH versions.
const (
	MainnetP2PKH byte = 22 // "SP…"
	MainnetP2SH  byte = 20 // "SM…"
	TestnetP2PKH byte = 26 // "ST…"
	TestnetP2SH  byte = 21 // "SN…"
)

// MaxVersion is the largest version a c32check string can carry: the version is one c32 digit.
const MaxVersion = 31

// decodeTable maps an input byte to its c32 digit, or -1. It accepts lowercase and the
// homoglyphs O→0 and I, L→1 the way the reference decoders do; strict parsers re-encode and
// compare to reject those spellings.
var decodeTable = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = int8(i)
		t[alphabet[i]|0x20] = int8(i) // lowercase; digits are unaffected
	}
	for _, c := range "oO" {
		t[c] = 0
	}
	for _, c := range "iIlL" {
		t[c] = 1
	}
	return t
}()

// EncodeRaw writes data in c32 without version or checksum: the big-endian number in base 32
// without leading zeros, preceded by one '0' per leading zero byte.
func EncodeRaw(data []byte) string {
	digits := make([]byte, 0, len(data)*8/5+2)
	var acc uint16
	var bits uint
	// Consume bits from the least significant end, producing digits in reverse order.
	for i := len(data) - 1; i >= 0; i-- {
		acc |= uint16(data[i]) << bits
		bits += 8
		for bits >= 5 {
			digits = append(digits, alphabet[acc&31])
			acc >>= 5
			bits -= 5
		}
	}
	if bits > 0 {
		digits = append(digits, alphabet[acc&31])
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	for _, b := range data {
		if b != 0 {
			break
		}
		digits = append(digits, '0')
	}
	for i, j := 0, len(digits)-1; i < j; i, j = i+1, j-1 {
		digits[i], digits[j] = digits[j], digits[i]
	}
	return string(digits)
}

// DecodeRaw is the inverse of EncodeRaw. It reports the position of the first invalid character.
func DecodeRaw(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)*5/8+1)
	var acc uint16
	var bits uint
	for i := len(s) - 1; i >= 0; i-- {
		d := decodeTable[s[i]]
		if d < 0 {
			return nil, fmt.Errorf("invalid c32 character %q at position %d", s[i], i)
		}
		acc |= uint16(d) << bits
		bits += 5
		if bits >= 8 {
			out = append(out, byte(acc))
			acc >>= 8
			bits -= 8
		}
	}
	if acc != 0 {
		out = append(out, byte(acc))
	}
	// The number's own leading zero bytes are dropped; leading '0' characters stand for them.
	for len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	for i := 0; i < len(s) && s[i] == '0'; i++ {
		out = append(out, 0)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

func checksum(version byte, data []byte) [4]byte {
	h := sha256.New()
	h.Write([]byte{version})
	h.Write(data)
	first := h.Sum(nil)
	second := sha256.Sum256(first)
	return [4]byte(second[:4])
}

// Encode is c32checkEncode: the version digit followed by c32(data ‖ checksum).
// It panics if version > MaxVersion, which no caller can produce from a parsed address.
func Encode(version byte, data []byte) string {
	if version > MaxVersion {
		panic(fmt.Sprintf("c32: version %d does not fit in one c32 digit", version))
	}
	sum := checksum(version, data)
	payload := make([]byte, 0, len(data)+4)
	payload = append(append(payload, data...), sum[:]...)
	return string(alphabet[version]) + EncodeRaw(payload)
}

// Decode is c32checkDecode: it returns the version and the data after checking the checksum.
func Decode(s string) (version byte, data []byte, err error) {
	if len(s) < 2 {
		return 0, nil, fmt.Errorf("c32check string %q is too short", s)
	}
	v := decodeTable[s[0]]
	if v < 0 {
		return 0, nil, fmt.Errorf("invalid c32 version character %q", s[0])
	}
	raw, err := DecodeRaw(s[1:])
	if err != nil {
		return 0, nil, err
	}
	if len(raw) < 4 {
		return 0, nil, errors.New("c32check payload is shorter than its 4-byte checksum")
	}
	data, sum := raw[:len(raw)-4], raw[len(raw)-4:]
	want := checksum(byte(v), data)
	if !bytes.Equal(sum, want[:]) {
		return 0, nil, fmt.Errorf("c32check checksum mismatch: got %x, want %x", sum, want)
	}
	return byte(v), data, nil
}
