package address

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func TestFromScript(t *testing.T) {
	tests := []struct {
		script, want string
		version      byte
	}{
		// ordi's deployer (mainnet inscription b61b0172…i0)
		{"512037679ea62eab55ebfd442c53c4ad46b6b75e45d8a8fa9cb31a87d0df268b029a", "bc1pxaneaf3w4d27hl2y93fuft2xk6m4u3wc4rafevc6slgd7f5tq2dqyfgy06", P2TR},
		// BIP 173 P2WPKH example
		{"0014751e76e8199196d454941c45d1b3a323f1433bd6", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", P2WPKH},
		// the genesis coinbase's key hash
		{"76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", P2PKH},
		{"a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", P2SH},
	}
	for _, tc := range tests {
		script, _ := hex.DecodeString(tc.script)
		got, ok := FromScript(script, Mainnet)
		if !ok || got != tc.want {
			t.Errorf("FromScript(%s) = %q %v, want %q", tc.script, got, ok, tc.want)
			continue
		}
		a, err := Decode(got)
		if err != nil || a.Version != tc.version || !bytes.Contains(script, a.Hash) {
			t.Errorf("Decode(%s) = %+v, %v", got, a, err)
		}
	}
	for _, s := range []string{"6a", "6a0461626364", "2102" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798ac", ""} {
		script, _ := hex.DecodeString(s)
		if got, ok := FromScript(script, Mainnet); ok {
			t.Errorf("FromScript(%s) = %q, want no address", s, got)
		}
	}
}
