package chainwrite_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A balance's pending figures count the principal's unpruned mempool transactions as the
// reference does: token-transfer amounts it receives in, amounts plus fees it sends and fees of
// the transactions it sponsors out; the newest of all of them (sent, sponsored or received) is
// its latest pending transaction. Dropped transactions and other principals' count for nothing.
func TestBalancePendingFigures(t *testing.T) {
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	const p, other = "ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM", "ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG"
	str := func(s string) *string { return &s }
	transfer := func(id byte, sender, recipient, amount, fee string) *db.MempoolTx {
		m := &db.MempoolTx{TxID: bytes.Repeat([]byte{id}, 32)}
		m.TxFields.RawTx, m.TxFields.AnchorMode, m.TxFields.PostConditionMode = []byte{id}, 3, 1
		m.TxFields.SenderAddress, m.TxFields.FeeRate, m.TxFields.Nonce = sender, fee, "0"
		m.TxFields.TokenTransferRecipientAddress, m.TxFields.TokenTransferAmount = str(recipient), str(amount)
		return m
	}
	sponsored := transfer(3, other, other, "1000", "7")
	sponsored.TxFields.Sponsored, sponsored.TxFields.SponsorAddress = true, str(p)
	// One message per second, so that receipt times order the transactions.
	start := time.Unix(1_700_000_000, 0)
	for i, m := range []*db.MempoolTx{
		transfer(1, other, p, "500", "10"),  // in: 500
		transfer(2, p, other, "200", "20"),  // out: 220
		sponsored,                           // out: 7 (the fee only)
		transfer(4, p, p, "50", "5"),        // in: 50, out: 55
		transfer(5, other, other, "9", "1"), // not p's
		transfer(6, p, other, "999", "99"),  // dropped below
	} {
		if err := chainwrite.NewStore(store).Ingest(ctx, start.Add(time.Duration(i)*time.Second), chainwrite.IngestOptions{}, func(ctx context.Context, w *chainwrite.Writer) error {
			return w.InsertMempoolTxs(ctx, []*db.MempoolTx{m})
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chainwrite.NewStore(store).Ingest(ctx, start.Add(time.Minute), chainwrite.IngestOptions{}, func(ctx context.Context, w *chainwrite.Writer) error {
		return w.DropMempoolTxs(ctx, [][]byte{bytes.Repeat([]byte{6}, 32)}, db.TxStatusDroppedReplaceByFee, nil)
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := store.StxBalances(ctx, []string{p}, db.BalanceAt{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("balance of %s: %v, %d rows", p, err, len(rows))
	}
	b := rows[0]
	if deref(b.MempoolInbound) != "550" || deref(b.MempoolOutbound) != "282" || deref(b.EstimatedBalance) != "268" ||
		!bytes.Equal(b.LatestMempoolTxID, bytes.Repeat([]byte{4}, 32)) {
		t.Errorf("pending in %s, out %s, estimated %s, latest %x; want 550, 282, 268 and the 0x04… transfer",
			deref(b.MempoolInbound), deref(b.MempoolOutbound), deref(b.EstimatedBalance), b.LatestMempoolTxID)
	}
	idle, err := store.StxBalances(ctx, []string{"ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0"}, db.BalanceAt{})
	if err != nil || len(idle) != 1 || deref(idle[0].MempoolInbound) != "0" || deref(idle[0].MempoolOutbound) != "0" ||
		deref(idle[0].EstimatedBalance) != "0" || idle[0].LatestMempoolTxID != nil {
		t.Errorf("principal without pending transactions: %v %+v, want 0 in, 0 out, no latest", err, idle)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
