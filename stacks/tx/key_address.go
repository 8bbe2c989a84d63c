package tx

import "github.com/stxgraph/stxgraph/stacks/c32"

// KeyAddress is the single-signature (P2PKH) address of a public key as serialized (33 bytes
// compressed or 65 uncompressed), on mainnet or testnet.
func KeyAddress(pub []byte, mainnet bool) c32.Address {
	return c32.Address{Version: c32.VersionForHashMode(byte(HashP2PKH), mainnet), Hash160: hash160(pub)}
}
