package chainwrite

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
)

// Notices of transactions accepted into the mempool and dropped from it name, beside the ids, the
// principals whose pending state each changes: its sender, sponsor, STX recipient and deployed
// contract. A drop names them from the stored rows, as the node's message names ids alone. Many
// transactions are announced in several notices, each below the NOTIFY limit and naming the
// principals of its own transactions.
func TestMempoolNoticesNameTheirPrincipals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	str := func(s string) *string { return &s }
	tx := func(i int, f db.TxFields) *db.MempoolTx {
		f.RawTx, f.Nonce, f.FeeRate, f.AnchorMode, f.PostConditionMode = []byte{0}, "1", "10", 3, 1
		if f.SenderAddress == "" {
			f.SenderAddress = fmt.Sprintf("ST%dSENDER", i)
		}
		return &db.MempoolTx{TxID: []byte{byte(i >> 8), byte(i)}, TxFields: f}
	}
	want := map[string][]string{} // "0x" id -> its principals, written out here
	rows := []*db.MempoolTx{
		tx(1, db.TxFields{SenderAddress: "ST1ALICE", TokenTransferRecipientAddress: str("ST2BOB"), TokenTransferAmount: str("5")}),
		tx(2, db.TxFields{SenderAddress: "ST2BOB", Sponsored: true, SponsorAddress: str("ST3CAROL"), SponsorNonce: str("1"),
			TokenTransferRecipientAddress: str("ST1ALICE.vault"), TokenTransferAmount: str("7")}),
		tx(3, db.TxFields{SenderAddress: "ST3CAROL", SmartContractContractID: str("ST3CAROL.token")}),
		tx(4, db.TxFields{SenderAddress: "ST1ALICE", ContractCallContractID: str("ST3CAROL.token"), ContractCallFunctionName: str("mint")}),
	}
	want["0x0001"] = []string{"ST1ALICE", "ST2BOB"}
	want["0x0002"] = []string{"ST2BOB", "ST3CAROL", "ST1ALICE.vault"}
	want["0x0003"] = []string{"ST3CAROL", "ST3CAROL.token"}
	want["0x0004"] = []string{"ST1ALICE"}
	for i := 5; i < 400; i++ { // enough senders for several notices
		rows = append(rows, tx(i, db.TxFields{}))
		want[notices.PendingTx(rows[len(rows)-1].TxID)] = []string{rows[len(rows)-1].SenderAddress}
	}
	var first int64
	if err := store.DB.NewRaw("SELECT coalesce(max(seq), 0) FROM notices").Scan(ctx, &first); err != nil {
		t.Fatal(err)
	}
	cs := NewStore(store)
	if err := cs.Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		return w.InsertMempoolTxs(ctx, rows)
	}); err != nil {
		t.Fatal(err)
	}
	dropped := [][]byte{rows[1].TxID, rows[2].TxID, {0xff, 0xff}} // the last one never pending
	if err := cs.Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		return w.DropMempoolTxs(ctx, dropped, db.TxStatusDroppedReplaceByFee, nil)
	}); err != nil {
		t.Fatal(err)
	}

	seen := map[string]map[string]int{} // kind -> "0x" id -> notices naming it
	count := map[string]int{}
	if err := notices.EachAfter(ctx, store.DB, first, 0, func(n notices.Notice) bool {
		count[n.Kind]++
		if seen[n.Kind] == nil {
			seen[n.Kind] = map[string]int{}
		}
		for _, id := range n.TxIDs {
			name := notices.PendingTx(id)
			seen[n.Kind][name]++
			for _, p := range want[name] {
				if !slices.Contains(n.Principals, p) {
					t.Errorf("%s notice of %s does not name %s (names %q)", n.Kind, name, p, n.Principals)
				}
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if count[notices.KindMempool] < 2 {
		t.Errorf("%d mempool notices for %d transactions; want them split below the NOTIFY limit", count[notices.KindMempool], len(rows))
	}
	for name := range want {
		if seen[notices.KindMempool][name] != 1 {
			t.Errorf("%s announced in %d mempool notices, want 1", name, seen[notices.KindMempool][name])
		}
	}
	for _, id := range dropped {
		if name := notices.PendingTx(id); seen[notices.KindMempoolDrop][name] != 1 {
			t.Errorf("%s announced in %d drop notices, want 1", name, seen[notices.KindMempoolDrop][name])
		}
	}
	var longest int
	if err := store.DB.NewRaw("SELECT max(octet_length(payload)) FROM notices WHERE seq > ?", first).Scan(ctx, &longest); err != nil || longest >= 8000 {
		t.Errorf("longest notice payload %d bytes (%v); NOTIFY takes less than 8000", longest, err)
	}
}
