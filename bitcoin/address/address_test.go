package address

import (
	"encoding/hex"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		addr    string
		version byte
		hash    string
		network Network
	}{
		// The genesis block's address, whose hash160 is well known.
		{"1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", P2PKH, "62e907b15cbf27d5425399ebf6f0fb50ebb88f18", Mainnet},
		{"3P14159f73E4gFr7JterCCQh9QjiTjiZrG", P2SH, "e9c3dd0c07aac76179ebc76a6c78d4d67c6c160a", Mainnet},
		{"mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", P2PKH, "243f1394f44554f4ce3fd68649c19adc483ce924", Testnet},
		// The reference's P2SH-P2WPKH test address (pox-4-btc-address-formats): plain P2SH on the wire.
		{"2N74VLxyT79VGHiBK2zEg3a9HJG7rEc5F3o", P2SH, "978a0121f9a24de65a13bab0c43c3a48be074eae", Testnet},
		// BIP 173 and BIP 350 test vectors.
		{"BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", P2WPKH, "751e76e8199196d454941c45d1b3a323f1433bd6", Mainnet},
		{"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", P2WSH, "1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262", Testnet},
		{"bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", P2TR, "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", Mainnet},
		{"tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47zagq", P2TR, "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", Testnet},
		// Bitcoin Core's regtest example.
		{"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", P2WPKH, "751e76e8199196d454941c45d1b3a323f1433bd6", Regtest},
		{"bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6", P2TR, "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798", Regtest},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			a, err := Decode(tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if a.Version != tt.version || hex.EncodeToString(a.Hash) != tt.hash || a.Network != tt.network {
				t.Errorf("Decode = {version %d, hash %x, %s}, want {%d, %s, %s}", a.Version, a.Hash, a.Network, tt.version, tt.hash, tt.network)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct{ addr, err string }{
		{"1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", "bad checksum"},
		{"1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf0a", "invalid base58 character"},
		{"", "too short"},
		// A Stacks address uses base58 characters but is no base58check string.
		{"SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7", "bad checksum"},
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", "bad checksum"},
		{"tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7", "mixed case"},
		// Witness version 0 with a bech32m checksum (BIP 350).
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", "bad checksum"},
		// Valid bech32m, but witness version 2 is no PoX address.
		{"bc1zw508d6qejxtdg4y5r3zarvary0c5xw7k0w7t5p", "witness version 2"},
		{"bc1qqqqqqqq", "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			_, err := Decode(tt.addr)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Decode(%q) error = %v, want one containing %q", tt.addr, err, tt.err)
			}
		})
	}
}
