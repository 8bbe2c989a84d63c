package db_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// testBlock is the anchor block of the canonical events eventAt places: transaction tx sits at
// index tx of height 7, anchored.
var testBlock = []byte{0xb1}

func eventAt(tx byte, index int32) db.EventPosition {
	return db.EventPosition{TxID: []byte{tx}, IndexBlockHash: testBlock, MicroblockHash: []byte{}, EventIndex: index,
		TxIndex: int32(tx), BlockHeight: 7, MicroblockSequence: 2147483647, Canonical: true, MicroblockCanonical: true}
}

// The events of many transactions read in one statement come back per transaction, in the order
// of the keys asked for: each key with the events a read of its transaction alone (by tx id) finds
// in the window (its events from that index on, oldest first), whatever their kinds, a transaction without events or asked for twice included.
func TestEventsOfTxsFollowTheirKeys(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	alice, bob := "ST1ALICE", "ST2BOB"
	events := []any{
		&db.StxEvent{EventPosition: eventAt(1, 0), AssetEventTypeID: db.AssetEventTransfer, Sender: &alice, Recipient: &bob, Amount: "5"},
		&db.ContractLog{EventPosition: eventAt(1, 1), ContractIdentifier: "ST1ALICE.c", Topic: "print", Value: []byte{0x01}},
		&db.StxEvent{EventPosition: eventAt(1, 2), AssetEventTypeID: db.AssetEventMint, Recipient: &alice, Amount: "6"},
		&db.ContractLog{EventPosition: eventAt(2, 0), ContractIdentifier: "ST2BOB.c", Topic: "print", Value: []byte{0x02}},
	}
	for _, e := range events {
		if _, err := store.DB.NewInsert().Model(e).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	row := func(tx byte) *db.Tx {
		return &db.Tx{TxID: []byte{tx}, IndexBlockHash: testBlock, MicroblockHash: []byte{}, EventKinds: db.KindsOf(db.AllEventTypes)}
	}
	keys := []*db.Tx{row(2), row(3), row(1), row(2)} // 3 has no events; 2 is asked for twice
	for _, w := range []db.EventWindow{{Offset: 0, Limit: 5}, {Offset: 1, Limit: 1}, {Offset: 0, Limit: 2}} {
		got, err := store.EventsOfTxs(ctx, keys, w, db.AllEventColumns)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("window %+v: %d lists for %d keys", w, len(got), len(keys))
		}
		for i, k := range keys {
			newestFirst, err := store.Events(ctx, db.EventFilter{TxID: k.TxID, Types: db.AllEventTypes, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			var alone []db.Event // the transaction's events in the window, in event_index order
			for _, e := range slices.Backward(newestFirst) {
				if n := e.Position().EventIndex; n >= w.Offset && n < w.Offset+w.Limit {
					alone = append(alone, e)
				}
			}
			if !reflect.DeepEqual(got[i], alone) {
				t.Errorf("window %+v, key %d (tx %x): got %s, read alone %s", w, i, k.TxID, describe(got[i]), describe(alone))
			}
		}
	}
}

// describe lists events by kind and index, for a failure's message.
func describe(es []db.Event) []string {
	var out []string
	for _, e := range es {
		p := e.Position()
		out = append(out, fmt.Sprintf("%T@%d", e, p.EventIndex))
	}
	return out
}
