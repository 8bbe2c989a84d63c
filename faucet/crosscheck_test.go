package faucet_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/faucet"
)

// The npm project of stacks/tx's cross-check (installed by `make crosscheck-deps`).
const crosscheckDir = "../stacks/tx/testdata/crosscheck"

// @stacks/transactions 7.6.0 deserializes the faucet's payouts, verifies their signatures and
// reads the same sender, nonce, fee, recipient and amount.
func TestSTXCrossCheckStacksJS(t *testing.T) {
	t.Parallel()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed; skipping the @stacks/transactions cross-check")
	}
	if _, err := os.Stat(filepath.Join(crosscheckDir, "node_modules", "@stacks", "transactions")); err != nil {
		msg := "run `make crosscheck-deps` to enable the @stacks/transactions cross-check"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 41)
	e.node.feeRate = 2
	recipients := []string{testnetAddress("js 1"), testnetAddress("js 2") + ".faucet-vault"}
	var raws, amounts []string
	for i, to := range recipients {
		r := e.stx(to, i == 1)
		amount := faucet.DefaultSTXAmount
		if i == 1 {
			amount = e.node.stacking * 12 / 10
		}
		e.checkTx(r, to, amount)
		raws = append(raws, r.body["txRaw"].(string))
		amounts = append(amounts, strconv.FormatUint(amount, 10))
	}
	in, _ := json.Marshal(map[string]any{"sign": []any{}, "decode": raws})
	cmd := exec.Command(nodeBin, "crosscheck.mjs")
	cmd.Dir = crosscheckDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node crosscheck.mjs: %v\n%s", err, stderr.String())
	}
	var res struct {
		Version string `json:"version"`
		Decoded []struct {
			TxID, Reserialized, Verified, Signer, Nonce, Fee, Recipient, Amount string
		} `json:"decoded"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Version != "7.6.0" || len(res.Decoded) != len(raws) {
		t.Fatalf("crosscheck output %s (%v), want @stacks/transactions 7.6.0 and %d decoded", out, err, len(raws))
	}
	for i, d := range res.Decoded {
		sent := e.node.byID("0x" + d.TxID)
		if sent == nil {
			t.Fatalf("stacks.js computed txid %s, which the faucet did not send", d.TxID)
		}
		want := strings.Join([]string{raws[i], "ok", strconv.FormatUint(41+uint64(i), 10), strconv.FormatUint(2*uint64(len(raws[i])/2), 10), recipients[i], amounts[i]}, "|")
		got := strings.Join([]string{d.Reserialized, d.Verified, d.Nonce, d.Fee, d.Recipient, d.Amount}, "|")
		if got != want {
			t.Errorf("stacks.js read payout %d as\n  %s\nwant\n  %s", i, got, want)
		}
		if signer := sent.Origin.Signer; d.Signer != hex.EncodeToString(signer[:]) {
			t.Errorf("stacks.js signer %s, faucet key hash %x", d.Signer, signer)
		}
	}
}
