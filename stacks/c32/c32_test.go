package c32

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/internal/fixtures"
)

type vectorFile struct {
	Addresses []struct {
		Address string `json:"address"`
		Version byte   `json:"version"`
		Hash160 string `json:"hash160"`
	} `json:"c32_addresses"`
	Raw []struct {
		Hex string `json:"hex"`
		C32 string `json:"c32"`
	} `json:"c32_raw"`
	ContractIdentifiers []struct {
		ContractID   string `json:"contract_id"`
		Version      byte   `json:"version"`
		Hash160      string `json:"hash160"`
		ContractName string `json:"contract_name"`
	} `json:"contract_identifiers"`
}

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	raw, err := os.ReadFile(fixtures.Reference(t, "stacks-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(raw, &vf); err != nil {
		t.Fatal(err)
	}
	if len(vf.Addresses) == 0 || len(vf.Raw) == 0 || len(vf.ContractIdentifiers) == 0 {
		t.Fatal("stacks-vectors.json lacks c32 vectors")
	}
	return vf
}

func TestAddressVectors(t *testing.T) {
	for _, v := range loadVectors(t).Addresses {
		h, _ := hex.DecodeString(v.Hash160)
		a := Address{Version: v.Version, Hash160: [20]byte(h)}
		if got := a.String(); got != v.Address {
			t.Errorf("encode %d/%s = %s, want %s", v.Version, v.Hash160, got, v.Address)
		}
		parsed, err := ParseAddress(v.Address)
		if err != nil {
			t.Errorf("ParseAddress(%s): %v", v.Address, err)
			continue
		}
		if parsed != a {
			t.Errorf("ParseAddress(%s) = %+v, want %+v", v.Address, parsed, a)
		}
		wantMainnet := v.Version == 22 || v.Version == 20
		if parsed.IsMainnet() != wantMainnet || parsed.IsTestnet() == wantMainnet {
			t.Errorf("%s: IsMainnet = %v", v.Address, parsed.IsMainnet())
		}
	}
}

func TestRawVectors(t *testing.T) {
	for _, v := range loadVectors(t).Raw {
		b, _ := hex.DecodeString(v.Hex)
		if got := EncodeRaw(b); got != v.C32 {
			t.Errorf("EncodeRaw(%s) = %q, want %q", v.Hex, got, v.C32)
		}
		back, err := DecodeRaw(v.C32)
		if err != nil || hex.EncodeToString(back) != v.Hex {
			t.Errorf("DecodeRaw(%q) = %x, %v; want %s", v.C32, back, err, v.Hex)
		}
	}
}

func TestContractIdentifierVectors(t *testing.T) {
	for _, v := range loadVectors(t).ContractIdentifiers {
		p, err := ParsePrincipal(v.ContractID)
		if err != nil {
			t.Fatalf("%s: %v", v.ContractID, err)
		}
		if p.Address.Version != v.Version || hex.EncodeToString(p.Address.Hash160[:]) != v.Hash160 ||
			p.ContractName != v.ContractName || !p.IsContract() || p.String() != v.ContractID {
			t.Errorf("ParsePrincipal(%s) = %+v", v.ContractID, p)
		}
	}
}

func TestParseAddressRejects(t *testing.T) {
	good := "ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ"
	tests := []struct{ in, err string }{
		{"", "length 0"},
		{"XT2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ", "must start with 'S'"},
		{"ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RR", "checksum mismatch"},
		{"ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RU", `invalid c32 character 'U'`},
		{strings.ToLower(good[:1]) + good[1:], "must start with 'S'"},
		{"S" + strings.ToLower(good[1:]), "not in canonical form"},
		{"ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0R", "checksum mismatch"},
		{"SP" + Encode(22, make([]byte, 19))[1:], "payload is 19 bytes"},
		{good + strings.Repeat("0", 10), "outside 6..41"},
	}
	for _, tt := range tests {
		_, err := ParseAddress(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseAddress(%q) error = %v, want %q", tt.in, err, tt.err)
		}
	}
}

func TestParsePrincipal(t *testing.T) {
	addr := "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7"
	tests := []struct {
		in string
		ok bool
	}{
		{addr, true},
		{addr + ".a", true},
		{addr + ".my-contract_v2", true},
		{addr + "." + strings.Repeat("a", 128), true},
		{addr + "." + strings.Repeat("a", 129), false},
		{addr + ".", false},
		{addr + ".1abc", false},
		{addr + ".a.b", false},
		{addr + ".a b", false},
	}
	for _, tt := range tests {
		p, err := ParsePrincipal(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParsePrincipal(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && p.String() != tt.in {
			t.Errorf("ParsePrincipal(%q).String() = %q", tt.in, p.String())
		}
	}
}

func TestVersionForHashMode(t *testing.T) {
	tests := []struct {
		mode    byte
		mainnet bool
		want    byte
	}{
		{0x00, true, MainnetP2PKH}, {0x00, false, TestnetP2PKH},
		{0x01, true, MainnetP2SH}, {0x02, false, TestnetP2SH},
		{0x03, true, MainnetP2SH}, {0x05, false, TestnetP2SH}, {0x07, true, MainnetP2SH},
	}
	for _, tt := range tests {
		if got := VersionForHashMode(tt.mode, tt.mainnet); got != tt.want {
			t.Errorf("VersionForHashMode(%d, %v) = %d, want %d", tt.mode, tt.mainnet, got, tt.want)
		}
	}
}

func TestDecodeChecksum(t *testing.T) {
	v, data, err := Decode(Encode(21, []byte("hi")))
	if err != nil || v != 21 || string(data) != "hi" {
		t.Errorf("round trip gave %d %q %v", v, data, err)
	}
	if got := (Address{Version: 32}).String(); !strings.Contains(got, "invalid address version 32") {
		t.Errorf("version 32 rendered as %q", got)
	}
	if _, _, err := Decode("P1"); err == nil {
		t.Error("Decode accepted a payload shorter than the checksum")
	}
}

func TestValidPrincipalLenient(t *testing.T) {
	addr := "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7"
	tests := []struct {
		in string
		ok bool
	}{
		{addr, true},
		{addr + ".a", true},
		{addr + "." + strings.Repeat("a", 128), true},
		{addr + ".a.b", true},                               // only the first two parts are checked
		{addr + ".a..", true},                               // likewise
		{"Sp2j6zy48gv1ez5v2v5rb9mp66sw86pykknrv9ej7", true}, // decoded case-insensitively
		{"SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7" + ".a-b_c", true},
		{"SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ8", false}, // checksum
		{"sP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7", false}, // leading S only upper-case
		{addr + "." + strings.Repeat("a", 129), false},
		{addr + ".", false},
		{addr + "..a", false},
		{addr + ".1abc", false},
		{"SP2J6", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidPrincipalLenient(tt.in); got != tt.ok {
			t.Errorf("ValidPrincipalLenient(%q) = %v, want %v", tt.in, got, tt.ok)
		}
	}
}
