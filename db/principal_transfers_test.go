package db_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A principal's transfers are those of the transactions asked for alone, although the statement
// reads the whole span between the first and the last of them: a transaction of the span that
// was not asked for keeps its transfers, a transfer to oneself is read once, and other parties'
// transfers are not the principal's.
func TestPrincipalTransfersKeepToTheirTransactions(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	alice, bob, carol := "ST1ALICE", "ST2BOB", "ST3CAROL"
	events := []any{
		&db.StxEvent{EventPosition: eventAt(1, 0), AssetEventTypeID: db.AssetEventTransfer, Sender: &alice, Recipient: &bob, Amount: "5"},
		&db.FtEvent{EventPosition: eventAt(1, 1), AssetEventTypeID: db.AssetEventTransfer, AssetIdentifier: "ST1ALICE.t::t", Sender: &bob, Recipient: &alice, Amount: "6"},
		&db.StxEvent{EventPosition: eventAt(1, 2), AssetEventTypeID: db.AssetEventTransfer, Sender: &bob, Recipient: &carol, Amount: "7"},
		// In the span, but not asked for.
		&db.StxEvent{EventPosition: eventAt(2, 0), AssetEventTypeID: db.AssetEventTransfer, Sender: &alice, Recipient: &carol, Amount: "8"},
		&db.NftEvent{EventPosition: eventAt(3, 0), AssetEventTypeID: db.AssetEventTransfer, AssetIdentifier: "ST1ALICE.n::n", Sender: &carol, Recipient: &alice, Value: []byte{0x01}},
		&db.StxEvent{EventPosition: eventAt(3, 1), AssetEventTypeID: db.AssetEventTransfer, Sender: &alice, Recipient: &alice, Amount: "9"},
	}
	for _, e := range events {
		if _, err := store.DB.NewInsert().Model(e).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Each transaction row records the kinds of its events, as ingestion does.
	tx := func(n byte, kinds ...db.EventType) db.TxPosition {
		return (&db.Tx{TxID: []byte{n}, IndexBlockHash: testBlock, MicroblockHash: []byte{}, BlockHeight: 7,
			MicroblockSequence: 2147483647, TxIndex: int32(n), EventKinds: db.KindsOf(kinds), TxFields: db.TxFields{TypeID: db.TypeContractCall}}).Position()
	}
	got, err := store.PrincipalTransfers(ctx, alice, []db.TxPosition{
		tx(3, db.EventNonFungibleTokenAsset, db.EventStxAsset), tx(1, db.EventStxAsset, db.EventFungibleTokenAsset)})
	if err != nil {
		t.Fatal(err)
	}
	type transfer struct {
		tx    byte
		index int32
	}
	var kept []transfer
	for _, p := range positionsOf(got) {
		kept = append(kept, transfer{p.TxID[0], p.EventIndex})
	}
	slices.SortFunc(kept, func(a, b transfer) int { return int(a.tx)*100 + int(a.index) - int(b.tx)*100 - int(b.index) })
	want := []transfer{{1, 0}, {1, 1}, {3, 0}, {3, 1}}
	if !slices.Equal(kept, want) {
		t.Errorf("alice's transfers in transactions 3 and 1: %v, want %v", kept, want)
	}
	if len(got.Stx) != 2 || len(got.Ft) != 1 || len(got.Nft) != 1 {
		t.Errorf("by kind: %d STX, %d FT, %d NFT; want 2, 1, 1", len(got.Stx), len(got.Ft), len(got.Nft))
	}
	// Transactions whose events are of fewer kinds are read through those kinds' indexes alone.
	one, err := store.PrincipalTransfers(ctx, alice, []db.TxPosition{tx(1, db.EventStxAsset, db.EventFungibleTokenAsset)})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Stx) != 1 || len(one.Ft) != 1 || len(one.Nft) != 0 {
		t.Errorf("alice's transfers in transaction 1: %d STX, %d FT, %d NFT; want 1, 1, 0", len(one.Stx), len(one.Ft), len(one.Nft))
	}
	// Newest event first within each kind.
	if len(got.Stx) == 2 && got.Stx[0].EventIndex < got.Stx[1].EventIndex {
		t.Errorf("STX transfers not newest first: %d before %d", got.Stx[0].EventIndex, got.Stx[1].EventIndex)
	}
}

func positionsOf(t *db.Transfers) []*db.EventPosition {
	var out []*db.EventPosition
	for _, e := range t.Stx {
		out = append(out, &e.EventPosition)
	}
	for _, e := range t.Ft {
		out = append(out, &e.EventPosition)
	}
	for _, e := range t.Nft {
		out = append(out, &e.EventPosition)
	}
	return out
}
