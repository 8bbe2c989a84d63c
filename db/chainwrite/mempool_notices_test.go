package chainwrite

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
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
		id := make([]byte, 32)
		id[30], id[31] = byte(i>>8), byte(i)
		return &db.MempoolTx{TxID: id, TxFields: f}
	}
	want := map[string][]string{} // "0x" id -> its principals, written out here
	rows := []*db.MempoolTx{
		tx(1, db.TxFields{SenderAddress: "ST1ALICE", TokenTransferRecipientAddress: str("ST2BOB"), TokenTransferAmount: str("5")}),
		tx(2, db.TxFields{SenderAddress: "ST2BOB", Sponsored: true, SponsorAddress: str("ST3CAROL"), SponsorNonce: str("1"),
			TokenTransferRecipientAddress: str("ST1ALICE.vault"), TokenTransferAmount: str("7")}),
		tx(3, db.TxFields{SenderAddress: "ST3CAROL", SmartContractContractID: str("ST3CAROL.token")}),
		tx(4, db.TxFields{SenderAddress: "ST1ALICE", ContractCallContractID: str("ST3CAROL.token"), ContractCallFunctionName: str("mint")}),
	}
	for i, ps := range [][]string{{"ST1ALICE", "ST2BOB"}, {"ST2BOB", "ST3CAROL", "ST1ALICE.vault"}, {"ST3CAROL", "ST3CAROL.token"}, {"ST1ALICE"}} {
		want[hexID(rows[i].TxID)] = ps
	}
	// Then the longest a transaction's principals get, none shared: standard principals of 41
	// characters and contract ones with names of 128.
	for i := 5; i < 400; i++ {
		std := func(role string) string { return fmt.Sprintf("ST%s%036d", role, i) }
		contract := func(role string) string { return std(role) + "." + strings.Repeat("c", 128) }
		r := tx(i, db.TxFields{SenderAddress: std("S"), Sponsored: true, SponsorAddress: str(std("P")), SponsorNonce: str("1"),
			TokenTransferRecipientAddress: str(contract("R")), TokenTransferAmount: str("1"), SmartContractContractID: str(contract("D"))})
		rows = append(rows, r)
		want[hexID(r.TxID)] = []string{std("S"), std("P"), contract("R"), contract("D")}
	}
	var first int64
	if err := store.DB.NewRaw("SELECT coalesce(max(seq), 0) FROM notices").Scan(ctx, &first); err != nil {
		t.Fatal(err)
	}
	dropped := [][]byte{rows[1].TxID, rows[2].TxID, tx(0xffff, db.TxFields{}).TxID} // the last one never pending
	slices.Reverse(rows)                                                            // a message's order that is not the ids' own
	cs := NewStore(store)
	if err := cs.Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		return w.InsertMempoolTxs(ctx, rows)
	}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Ingest(ctx, time.Now(), IngestOptions{}, func(ctx context.Context, w *Writer) error {
		return w.DropMempoolTxs(ctx, dropped, db.TxStatusDroppedReplaceByFee, nil)
	}); err != nil {
		t.Fatal(err)
	}

	seen := map[string]map[string]int{} // kind -> "0x" id -> notices naming it
	count := map[string]int{}
	var order []string // the mempool notices' ids, one after the other
	if err := notices.EachAfter(ctx, store.DB, first, 0, func(n notices.Notice) bool {
		count[n.Kind]++
		if n.Kind == notices.KindMempool {
			for _, id := range n.TxIDs {
				order = append(order, hexID(id))
			}
		}
		if seen[n.Kind] == nil {
			seen[n.Kind] = map[string]int{}
		}
		for _, id := range n.TxIDs {
			name := hexID(id)
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
	for i, r := range rows {
		if i >= len(order) || order[i] != hexID(r.TxID) {
			t.Fatalf("mempool notices name the transactions in another order than the message's, from #%d", i)
		}
	}
	for name := range want {
		if seen[notices.KindMempool][name] != 1 {
			t.Errorf("%s announced in %d mempool notices, want 1", name, seen[notices.KindMempool][name])
		}
	}
	for _, id := range dropped {
		if name := hexID(id); seen[notices.KindMempoolDrop][name] != 1 {
			t.Errorf("%s announced in %d drop notices, want 1", name, seen[notices.KindMempoolDrop][name])
		}
	}
	var longest int
	if err := store.DB.NewRaw("SELECT max(octet_length(payload)) FROM notices WHERE seq > ?", first).Scan(ctx, &longest); err != nil || longest >= 8000 {
		t.Errorf("longest notice payload %d bytes (%v); NOTIFY takes less than 8000", longest, err)
	}
}

// hexID is a transaction id as notices write it.
func hexID(id []byte) string { return "0x" + hex.EncodeToString(id) }
