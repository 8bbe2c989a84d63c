package address

// PoX versions 0x02 and 0x03 are P2SH-wrapped segwit (P2SH-P2WPKH, P2SH-P2WSH): their hash
// bytes are a script hash, encoded as P2SH.
const (
	p2shP2WPKH byte = 0x02
	p2shP2WSH  byte = 0x03
)

// FromPox encodes a PoX reward address (version byte and hash bytes, as the pox contracts
// hold it) as a Bitcoin address on network, the way the Stacks libraries do: legacy versions
// in base58check over the hash bytes as they are, segwit ones in bech32 (v0) or bech32m (v1).
// ok is false for an unknown version.
func FromPox(version byte, hash []byte, network Network) (addr string, ok bool) {
	switch version {
	case P2PKH:
		return encodeBase58Check(append([]byte{base58Prefix[network][P2PKH]}, hash...)), true
	case P2SH, p2shP2WPKH, p2shP2WSH:
		return encodeBase58Check(append([]byte{base58Prefix[network][P2SH]}, hash...)), true
	case P2WPKH, P2WSH:
		return encodeSegwit(segwitHRP[network], 0, hash), true
	case P2TR:
		return encodeSegwit(segwitHRP[network], 1, hash), true
	}
	return "", false
}
