package ingest

import (
	"context"
	"reflect"
	"testing"

	"github.com/stxgraph/stxgraph/db"
)

// TestEventsReadByRecordedKinds reads the events of every transaction of a chain with contract
// calls and PoX events: all in one statement by the kinds ingestion recorded for each, then each
// alone (a statement holding its kinds' tables only), then all again as rows stored before kinds
// were recorded are read, by the kinds their type can emit. Every read gives the same events, so
// probing only the recorded kinds' tables misses none, and older rows read as before.
func TestEventsReadByRecordedKinds(t *testing.T) {
	store, _ := replayFixture(t, "epoch-3-transition")
	ctx := context.Background()
	read := func() ([]*db.Tx, [][]db.Event) {
		t.Helper()
		var txs []*db.Tx
		if err := store.DB.NewSelect().Model(&txs).Where("event_count > 0").
			Order("block_height", "microblock_sequence", "tx_index", "index_block_hash").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		events, err := store.EventsOfTxs(ctx, txs, db.EventWindow{Limit: 1 << 20}, db.AllEventColumns)
		if err != nil {
			t.Fatal(err)
		}
		return txs, events
	}

	txs, recorded := read()
	narrower, found := 0, 0
	for i, tx := range txs {
		if tx.EventKinds == 0 {
			t.Fatalf("transaction %s has %d events and no kinds recorded", db.Hex(tx.TxID), tx.EventCount)
		}
		if tx.EventKinds != db.EventKindsOfType(tx.TypeID) {
			narrower++
		}
		if len(recorded[i]) != int(tx.EventCount) {
			t.Errorf("transaction %s: %d events read, %d stored", db.Hex(tx.TxID), len(recorded[i]), tx.EventCount)
		}
		found += len(recorded[i])
	}
	if narrower == 0 || found == 0 {
		t.Fatalf("%d transactions with events, %d recording fewer kinds than their type: the fixture shows nothing", len(txs), narrower)
	}
	for i, tx := range txs {
		alone, err := store.EventsOfTxs(ctx, []*db.Tx{tx}, db.EventWindow{Limit: 1 << 20}, db.AllEventColumns)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(alone[0], recorded[i]) {
			t.Errorf("transaction %s: %d events read alone, %d with the others, or others", db.Hex(tx.TxID), len(alone[0]), len(recorded[i]))
		}
	}

	if _, err := store.DB.ExecContext(ctx, "UPDATE txs SET event_kinds = 0"); err != nil {
		t.Fatal(err)
	}
	unrecorded, byType := read()
	if len(unrecorded) != len(txs) {
		t.Fatalf("%d transactions read again, %d before", len(unrecorded), len(txs))
	}
	for i := range txs {
		if !reflect.DeepEqual(byType[i], recorded[i]) {
			t.Errorf("transaction %s: %d events read by its type's kinds, %d by the recorded ones, or others", db.Hex(txs[i].TxID), len(byType[i]), len(recorded[i]))
		}
	}
}

// TestTransfersReadByRecordedKinds reads each principal's transfers in all its transactions of a
// replayed chain twice: walking the indexes of the kinds of transfers its transactions recorded
// events of, then those of every kind. Both give the same transfers.
func TestTransfersReadByRecordedKinds(t *testing.T) {
	store, _ := replayFixture(t, "epoch-3-transition")
	ctx := context.Background()
	var principals []string
	if err := store.DB.NewRaw(`SELECT DISTINCT principal FROM principal_txs WHERE canonical AND microblock_canonical
		ORDER BY principal LIMIT 200`).Scan(ctx, &principals); err != nil {
		t.Fatal(err)
	}
	transfers, narrower := 0, 0
	for _, p := range principals {
		var txs []*db.Tx
		if err := store.DB.NewSelect().Model(&txs).Where(`(tx_id, index_block_hash, microblock_hash) IN (SELECT tx_id,
			index_block_hash, microblock_hash FROM principal_txs WHERE principal = ? AND canonical AND microblock_canonical)`, p).
			Scan(ctx); err != nil {
			t.Fatal(err)
		}
		recorded, every := make([]db.TxPosition, len(txs)), make([]db.TxPosition, len(txs))
		for i, tx := range txs {
			recorded[i] = tx.Position()
			every[i] = recorded[i]
			every[i].Kinds = db.KindsOf(db.AllEventTypes)
			if recorded[i].Kinds != every[i].Kinds {
				narrower++
			}
		}
		got, err := store.PrincipalTransfers(ctx, p, recorded)
		if err != nil {
			t.Fatal(err)
		}
		want, err := store.PrincipalTransfers(ctx, p, every)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d, %d and %d STX, FT and NFT transfers by the recorded kinds, %d, %d and %d by every kind",
				p, len(got.Stx), len(got.Ft), len(got.Nft), len(want.Stx), len(want.Ft), len(want.Nft))
		}
		transfers += len(want.Stx) + len(want.Ft) + len(want.Nft)
	}
	if transfers == 0 || narrower == 0 {
		t.Fatalf("%d principals, %d transfers, %d transactions recording fewer kinds than every one: the fixture shows nothing",
			len(principals), transfers, narrower)
	}
}
