package address

import (
	"crypto/sha256"
	"math/big"
	"strings"
)

var base58Prefix = map[Network]map[byte]byte{
	Mainnet: {P2PKH: 0x00, P2SH: 0x05},
	Testnet: {P2PKH: 0x6f, P2SH: 0xc4},
	Regtest: {P2PKH: 0x6f, P2SH: 0xc4},
}

var segwitHRP = map[Network]string{Mainnet: "bc", Testnet: "tb", Regtest: "bcrt"}

// FromScript returns the address of an output script (P2PKH, P2SH, segwit v0, taproot and
// later witness versions), or ok=false for scripts without one (OP_RETURN, bare public keys
// and multisig, nonstandard scripts).
func FromScript(script []byte, network Network) (addr string, ok bool) {
	switch {
	case len(script) == 25 && script[0] == 0x76 && script[1] == 0xa9 && script[2] == 0x14 && script[23] == 0x88 && script[24] == 0xac:
		return encodeBase58Check(append([]byte{base58Prefix[network][P2PKH]}, script[3:23]...)), true
	case len(script) == 23 && script[0] == 0xa9 && script[1] == 0x14 && script[22] == 0x87:
		return encodeBase58Check(append([]byte{base58Prefix[network][P2SH]}, script[2:22]...)), true
	case len(script) >= 4 && len(script) <= 42 && (script[0] == 0 || script[0] >= 0x51 && script[0] <= 0x60) && int(script[1]) == len(script)-2:
		version := script[0]
		if version != 0 {
			version -= 0x50
		}
		program := script[2:]
		if len(program) < 2 || version == 0 && len(program) != 20 && len(program) != 32 {
			return "", false
		}
		return encodeSegwit(segwitHRP[network], version, program), true
	}
	return "", false
}

func encodeBase58Check(payload []byte) string {
	first := sha256.Sum256(payload)
	second := sha256.Sum256(first[:])
	b := append(append([]byte(nil), payload...), second[:4]...)
	n := new(big.Int).SetBytes(b)
	var out []byte
	mod, base := new(big.Int), big.NewInt(58)
	for n.Sign() > 0 {
		n.DivMod(n, base, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func encodeSegwit(hrp string, version byte, program []byte) string {
	data := []byte{version}
	var acc, bits uint
	for _, v := range program {
		acc = acc<<8 | uint(v)
		bits += 8
		for bits >= 5 {
			bits -= 5
			data = append(data, byte(acc>>bits&31))
		}
	}
	if bits > 0 {
		data = append(data, byte(acc<<(5-bits)&31))
	}
	c := uint32(bech32Const)
	if version > 0 {
		c = bech32mConst
	}
	mod := polymod(append(append(hrpExpand(hrp), data...), 0, 0, 0, 0, 0, 0)) ^ c
	for i := range 6 {
		data = append(data, byte(mod>>(5*(5-i))&31))
	}
	var sb strings.Builder
	sb.WriteString(hrp)
	sb.WriteByte('1')
	for _, d := range data {
		sb.WriteByte(bech32Charset[d])
	}
	return sb.String()
}
