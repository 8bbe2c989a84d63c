package faucet_test

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/stacks/tx/txtest"
)

// @stacks/transactions 7.6.0 deserializes the faucet's payouts, verifies their signatures and
// reads the same sender, nonce, fee, recipient and amount.
func TestSTXCrossCheckStacksJS(t *testing.T) {
	t.Parallel()
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
	var res struct {
		Version string `json:"version"`
		Decoded []struct {
			TxID, Reserialized, Verified, Signer, Nonce, Fee, Recipient, Amount string
		} `json:"decoded"`
	}
	txtest.StacksJS(t, map[string]any{"sign": []any{}, "decode": raws}, &res)
	if len(res.Decoded) != len(raws) {
		t.Fatalf("stacks.js decoded %d payouts, want %d", len(res.Decoded), len(raws))
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
