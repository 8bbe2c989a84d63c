// Package address decodes Bitcoin addresses (base58check P2PKH/P2SH, bech32 segwit v0 and
// bech32m taproot; mainnet, testnet and regtest) into the form PoX reward addresses take in
// Clarity: a version byte naming the hash mode and the hash bytes.
package address

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// PoX address versions, as the pox contracts number the hash modes.
const (
	P2PKH  byte = 0x00
	P2SH   byte = 0x01
	P2WPKH byte = 0x04
	P2WSH  byte = 0x05
	P2TR   byte = 0x06
)

// Network is the Bitcoin network an address belongs to.
type Network string

// Networks. Testnet and regtest share their base58 version bytes, so a base58 address
// of either decodes as Testnet.
const (
	Mainnet Network = "mainnet"
	Testnet Network = "testnet"
	Regtest Network = "regtest"
)

// Address is a decoded reward address.
type Address struct {
	Version byte   // P2PKH, P2SH, P2WPKH, P2WSH or P2TR
	Hash    []byte // 20 bytes, or 32 for P2WSH and P2TR
	Network Network
}

// base58Versions maps base58check version bytes to hash mode and network.
var base58Versions = map[byte]struct {
	version byte
	network Network
}{
	0x00: {P2PKH, Mainnet}, 0x05: {P2SH, Mainnet},
	0x6f: {P2PKH, Testnet}, 0xc4: {P2SH, Testnet},
}

var segwitNetworks = map[string]Network{"bc": Mainnet, "tb": Testnet, "bcrt": Regtest}

// Decode decodes a Bitcoin address of a kind PoX can pay to.
func Decode(s string) (Address, error) {
	if hrp, _, ok := strings.Cut(strings.ToLower(s), "1"); ok && segwitNetworks[hrp] != "" {
		return decodeSegwit(s)
	}
	payload, err := decodeBase58Check(s)
	if err != nil {
		return Address{}, fmt.Errorf("bitcoin address %q: %w", s, err)
	}
	v, ok := base58Versions[payload[0]]
	if !ok || len(payload) != 21 {
		return Address{}, fmt.Errorf("bitcoin address %q: unknown version byte 0x%02x or length %d", s, payload[0], len(payload))
	}
	return Address{Version: v.version, Hash: payload[1:], Network: v.network}, nil
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// decodeBase58Check decodes base58 and checks and strips the 4-byte double-SHA-256 checksum.
func decodeBase58Check(s string) ([]byte, error) {
	n := new(big.Int)
	for _, c := range []byte(s) {
		d := strings.IndexByte(base58Alphabet, c)
		if d < 0 {
			return nil, fmt.Errorf("invalid base58 character %q", c)
		}
		n.Mul(n, big.NewInt(58)).Add(n, big.NewInt(int64(d)))
	}
	zeros := len(s) - len(strings.TrimLeft(s, "1"))
	b := append(make([]byte, zeros), n.Bytes()...)
	if len(b) < 5 {
		return nil, errors.New("too short")
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	first := sha256.Sum256(body)
	second := sha256.Sum256(first[:])
	if !bytes.Equal(second[:4], sum) {
		return nil, errors.New("bad checksum")
	}
	return body, nil
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// Checksum constants of BIP 173 (bech32, witness version 0) and BIP 350 (bech32m, 1 and up).
const (
	bech32Const  = 1
	bech32mConst = 0x2bc830a3
)

func decodeSegwit(s string) (Address, error) {
	fail := func(format string, args ...any) (Address, error) {
		return Address{}, fmt.Errorf("bitcoin address %q: "+format, append([]any{s}, args...)...)
	}
	if s != strings.ToLower(s) && s != strings.ToUpper(s) {
		return fail("mixed case")
	}
	s = strings.ToLower(s)
	sep := strings.LastIndexByte(s, '1')
	hrp, rest := s[:sep], s[sep+1:]
	if len(rest) < 7 || len(s) > 90 {
		return fail("bad length")
	}
	data := make([]byte, len(rest))
	for i := range rest {
		d := strings.IndexByte(bech32Charset, rest[i])
		if d < 0 {
			return fail("invalid bech32 character %q", rest[i])
		}
		data[i] = byte(d)
	}
	witVersion := data[0]
	want := uint32(bech32Const)
	if witVersion > 0 {
		want = bech32mConst
	}
	if polymod(append(hrpExpand(hrp), data...)) != want {
		return fail("bad checksum")
	}
	program, err := convertBits(data[1:len(data)-6], 5, 8)
	if err != nil {
		return fail("%v", err)
	}
	a := Address{Hash: program, Network: segwitNetworks[hrp]}
	switch {
	case witVersion == 0 && len(program) == 20:
		a.Version = P2WPKH
	case witVersion == 0 && len(program) == 32:
		a.Version = P2WSH
	case witVersion == 1 && len(program) == 32:
		a.Version = P2TR
	default:
		return fail("witness version %d with a %d-byte program is not a PoX address", witVersion, len(program))
	}
	return a, nil
}

func polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func hrpExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := range len(hrp) {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := range len(hrp) {
		out = append(out, hrp[i]&31)
	}
	return out
}

// convertBits regroups 5-bit groups into bytes; leftover bits must be zero padding.
func convertBits(data []byte, from, to uint) ([]byte, error) {
	var acc, bits uint
	var out []byte
	for _, v := range data {
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&(1<<to-1)))
		}
	}
	if bits >= from || acc&(1<<bits-1) != 0 {
		return nil, errors.New("invalid padding")
	}
	return out, nil
}
