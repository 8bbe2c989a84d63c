package tx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/tx/txtest"
)

type crossTransfer struct {
	Recipient  string `json:"recipient"`
	Amount     string `json:"amount"`
	PrivateKey string `json:"private_key"`
	Network    string `json:"network"`
	Memo       string `json:"memo"`
	Nonce      string `json:"nonce"`
	Fee        string `json:"fee"`
}

type crossResult struct {
	Version string `json:"version"`
	Signed  []struct {
		Hex  string `json:"hex"`
		TxID string `json:"txid"`
	} `json:"signed"`
	Decoded []struct {
		TxID         string `json:"txid"`
		Reserialized string `json:"reserialized"`
		Verified     string `json:"verified"`
		Signer       string `json:"signer"`
		Nonce        string `json:"nonce"`
		Fee          string `json:"fee"`
		Recipient    string `json:"recipient"`
		Amount       string `json:"amount"`
	} `json:"decoded"`
}

// crossTransfers varies everything a faucet transfer can vary: network, key compression,
// standard and contract recipients, memo length (up to the full 34 bytes) and large numbers.
func crossTransfers() []crossTransfer {
	recipients := []string{
		"ST2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKQYAC0RQ",
		"SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7",
		"ST000000000000000000002AMW42H.pox-4",
		"SN000000000000000000003YDHWKJ.multisig-vault",
	}
	memos := []string{"", "faucet", strings.Repeat("m", MemoLen), "h\u00e9llo \U0001F680"}
	var out []crossTransfer
	for i := range 24 {
		key := sha256.Sum256([]byte("stxgraph crosscheck " + strconv.Itoa(i)))
		keyHex := hex.EncodeToString(key[:])
		if i%3 != 0 {
			keyHex += "01" // compressed; every third key stays uncompressed
		}
		network := "testnet"
		if i%2 == 1 {
			network = "mainnet"
		}
		out = append(out, crossTransfer{
			Recipient:  recipients[i%len(recipients)],
			Amount:     strconv.FormatUint(uint64(i)*1_000_003+1, 10),
			PrivateKey: keyHex,
			Network:    network,
			Memo:       memos[i%len(memos)],
			Nonce:      strconv.FormatUint(uint64(i)<<(i%64), 10),
			Fee:        strconv.FormatUint(180+uint64(i)*7, 10),
		})
	}
	return out
}

func nodeCrosscheck(t *testing.T, input any) crossResult {
	var res crossResult
	txtest.StacksJS(t, input, &res)
	return res
}

// TestCrossCheckStacksJS signs the same transfers in Go and with @stacks/transactions 7.6.0 and
// compares the bytes, then has stacks.js decode and verify what Go signed.
func TestCrossCheckStacksJS(t *testing.T) {
	transfers := crossTransfers()
	goHex := make([]string, len(transfers))
	for i, tr := range transfers {
		goHex[i] = hex.EncodeToString(signCross(t, tr).Encode())
	}
	res := nodeCrosscheck(t, map[string]any{"sign": transfers, "decode": goHex})
	if len(res.Signed) != len(transfers) || len(res.Decoded) != len(transfers) {
		t.Fatalf("node returned %d signed and %d decoded, want %d", len(res.Signed), len(res.Decoded), len(transfers))
	}
	for i, tr := range transfers {
		if res.Signed[i].Hex != goHex[i] {
			t.Errorf("transfer %d (%+v):\n  go %s\n  js %s", i, tr, goHex[i], res.Signed[i].Hex)
		}
		tx, err := DecodeHex(goHex[i])
		if err != nil {
			t.Fatal(err)
		}
		id := tx.TxID()
		d := res.Decoded[i]
		want := fmt.Sprintf("%x|%s|ok|%x|%s|%s|%s|%s", id[:], goHex[i], tx.Origin.Signer[:], tr.Nonce, tr.Fee, tr.Recipient, tr.Amount)
		got := strings.Join([]string{d.TxID, d.Reserialized, d.Verified, d.Signer, d.Nonce, d.Fee, d.Recipient, d.Amount}, "|")
		if got != want {
			t.Errorf("stacks.js read transfer %d as\n  %s\nwant\n  %s", i, got, want)
		}
	}
}

func signCross(t *testing.T, tr crossTransfer) *Transaction {
	t.Helper()
	recipient, err := c32.ParsePrincipal(tr.Recipient)
	if err != nil {
		t.Fatal(err)
	}
	amount, _ := strconv.ParseUint(tr.Amount, 10, 64)
	nonce, _ := strconv.ParseUint(tr.Nonce, 10, 64)
	fee, _ := strconv.ParseUint(tr.Fee, 10, 64)
	tx, err := NewTokenTransfer(TransferOptions{
		Recipient: recipient, Amount: amount, Memo: tr.Memo, Nonce: nonce, Fee: fee,
		Mainnet: tr.Network == "mainnet",
	})
	if err != nil {
		t.Fatal(err)
	}
	key, compressed, err := ParsePrivateKey(tr.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.SignSingleSig(key, compressed); err != nil {
		t.Fatal(err)
	}
	return tx
}
