package main

import (
	"encoding/json"
	"testing"

	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// A soak's mempool message is one transfer the event observer reads: signed by its sender, at
// the nonce given, to the recipient.
func TestMempoolMessage(t *testing.T) {
	t.Parallel()
	g, err := chaingen.New(chaingen.Options{Seed: 3, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	from, to := g.Accounts()[2], g.Accounts()[3]
	body, err := mempoolMessage(from, to, 1<<40+7, false)
	if err != nil {
		t.Fatal(err)
	}
	var raws []string
	if err := json.Unmarshal(body, &raws); err != nil || len(raws) != 1 {
		t.Fatalf("message %s: %v", body, err)
	}
	got, err := tx.DecodeHex(raws[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(); err != nil {
		t.Errorf("signature: %v", err)
	}
	p, ok := got.Payload.(*tx.TokenTransfer)
	if got.Sender() != from.Address || got.Nonce() != 1<<40+7 || !ok || p.Recipient.Address != to.Address {
		t.Errorf("decoded %+v", got)
	}
}
