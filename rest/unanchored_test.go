package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/rest"
)

// The mocknet fixture ends with microblocks streamed on the tip and not yet confirmed. Their
// transactions and events lead an account's pages (events always, transactions with
// unanchored=true), and only then; the reads that skip those rows when nothing is streamed must
// not skip them here.
func TestUnconfirmedMicroblockRowsLeadAccountPages(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	replayLines(t, store, fixtureLines(t, "mocknet"))
	var locks []struct {
		LockedAddress string `bun:"locked_address"`
		TxID          []byte `bun:"tx_id"`
	}
	if err := store.DB.NewSelect().Table("stx_lock_events").Column("locked_address", "tx_id").
		Where("index_block_hash = '' AND canonical AND microblock_canonical").Scan(context.Background(), &locks); err != nil {
		t.Fatal(err)
	}
	if len(locks) == 0 {
		t.Fatal("the fixture no longer ends with an unconfirmed microblock event")
	}
	srv := serve(t, store, rest.Options{})
	get := func(path string, out any) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range locks {
		id := db.Hex(l.TxID)
		var events struct {
			Events []struct {
				TxID string `json:"tx_id"`
			} `json:"events"`
		}
		get("/extended/v1/tx/events?address="+l.LockedAddress, &events)
		if len(events.Events) == 0 || events.Events[0].TxID != id {
			t.Errorf("events of %s: %+v; want the unconfirmed %s first", l.LockedAddress, events.Events, id)
		}
		type page struct {
			Results []struct {
				Tx struct {
					TxID string `json:"tx_id"`
				} `json:"tx"`
			} `json:"results"`
		}
		var unanchored, anchored page
		get("/extended/v1/address/"+l.LockedAddress+"/transactions_with_transfers?unanchored=true", &unanchored)
		if len(unanchored.Results) == 0 || unanchored.Results[0].Tx.TxID != id {
			t.Errorf("unanchored transactions of %s: %+v; want the unconfirmed %s first", l.LockedAddress, unanchored.Results, id)
		}
		get("/extended/v1/address/"+l.LockedAddress+"/transactions_with_transfers", &anchored)
		for _, r := range anchored.Results {
			if r.Tx.TxID == id {
				t.Errorf("anchored transactions of %s list the unconfirmed %s", l.LockedAddress, id)
			}
		}
	}
}
