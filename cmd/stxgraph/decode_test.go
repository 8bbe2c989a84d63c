package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// faucetTx is vector tt-faucet-1 of the shared Stacks vectors.
const faucetTx = "808000000004007cd72d6afa8c9b2405e6d78cd2d732cabb2c60b9000000000000000700000000000000b40000ce370bc6030b29b5582e33410f74848e810ca6d8b7330f6f4d3e61ca5fefb16c349163bd487b4d019beb8dfb69b69258fc125627fd39b2b9ef5697f7d280fb2603020000000000051aa46ff88886c2ef9762d970b4d2c63678835bd39d000000001dcd650066617563657400000000000000000000000000000000000000000000000000000000"

func TestDecodeCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings of stdout
		stderr   string   // substring of stderr
		wantJSON map[string]any
	}{
		{
			name: "tx", args: []string{"tx", "0x" + faucetTx}, code: 0,
			wantJSON: map[string]any{
				"tx_id":          "0x1b8576de3ee008ad048f6dcee646c88b88733a820595ea2893f665b906348e3e",
				"sender_address": "ST1YDEBBAZA69P905WVBRSMPQ6B5BPB30Q4RD43KE",
				"fee_rate":       "180",
				"tx_type":        "token_transfer",
				"anchor_mode":    "any",
			},
		},
		{
			name: "clarity", args: []string{"clarity", "0x0c000000020162010000000000000000000000000000000201610100000000000000000000000000000001"}, code: 0,
			wantJSON: map[string]any{"repr": "(tuple (a u1) (b u2))", "type": "(tuple (a uint) (b uint))"},
		},
		{
			name: "contract address", args: []string{"address", "ST000000000000000000002AMW42H.pox-4"}, code: 0,
			wantJSON: map[string]any{"version": 26.0, "network": "testnet", "contract": true, "contract_name": "pox-4", "hash160": "0000000000000000000000000000000000000000"},
		},
		{name: "bad hex", args: []string{"tx", "80zz"}, code: 1, stderr: "invalid hex character 'z' at offset 2"},
		{name: "truncated tx", args: []string{"tx", faucetTx[:100]}, code: 1, stderr: "end of input reading signature: need 65 bytes, have 6 at byte offset 44"},
		{name: "trailing clarity bytes", args: []string{"clarity", "0x0703ff"}, code: 1, stderr: "1 trailing bytes after the value at byte offset 2"},
		{name: "bad clarity type", args: []string{"clarity", "0x070f"}, code: 1, stderr: "unknown Clarity type id 0x0f at byte offset 1"},
		{name: "bad checksum", args: []string{"address", "ST000000000000000000002AMW42J"}, code: 1, stderr: "checksum mismatch"},
		{name: "unknown kind", args: []string{"block", "00"}, code: 1, stderr: `unknown kind "block"`},
		{name: "help", args: []string{"--help"}, code: 0, stdout: []string{"Usage: stxgraph decode", "clarity <hex>"}},
		{name: "missing value", args: []string{"tx"}, code: 2, stderr: "Usage: stxgraph decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := decodeCommand(tt.args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q", s)
				}
			}
			if tt.wantJSON == nil {
				return
			}
			var got map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
			}
			for k, want := range tt.wantJSON {
				if got[k] != want {
					t.Errorf("%s = %v, want %v", k, got[k], want)
				}
			}
		})
	}
}
