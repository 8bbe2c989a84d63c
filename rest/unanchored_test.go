package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/rest"
)

// The mocknet fixture ends with microblocks streamed on the tip and not yet confirmed. Their
// transactions and events lead an account's pages (events and v2 transactions always,
// transactions_with_transfers with unanchored=true), and only then; the reads that skip those rows when nothing is streamed must
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

// On a generated chain whose tip streams a microblock not yet confirmed, an account with both
// anchored transactions and unconfirmed ones lists the unconfirmed first, then the anchored ones,
// and counts both, in its v2 transactions and in its transactions_with_transfers with
// unanchored=true: the page read by position alone would miss them.
func TestUnconfirmedMicroblockTxsLeadAccountLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	g, err := chaingen.New(chaingen.Options{Seed: 3, Blocks: 11, TxsPerBlock: 4, Accounts: 6, MicroblockEvery: 4, MicroblockTxs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Replay(ctx, store, g, nil); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, store, rest.Options{})
	for _, list := range []struct{ name, roles, path string }{
		{"v2 transactions", db.SummaryRolesSQL, "/extended/v2/addresses/%s/transactions?limit=50"},
		{"unanchored transactions_with_transfers", db.TransferRolesSQL, "/extended/v1/address/%s/transactions_with_transfers?limit=50&unanchored=true"},
	} {
		roles := strings.ReplaceAll(list.roles, "roles", "u.roles")
		var mixed []struct {
			Principal  string `bun:"principal"`
			Unanchored int    `bun:"unanchored"`
			Anchored   int    `bun:"anchored"`
		}
		if err := store.DB.NewRaw(`SELECT principal, count(*) FILTER (WHERE index_block_hash = '') AS unanchored,
			count(*) FILTER (WHERE index_block_hash <> '') AS anchored
			FROM principal_txs u WHERE canonical AND microblock_canonical AND `+roles+`
			GROUP BY principal HAVING count(*) FILTER (WHERE index_block_hash = '') > 0 AND count(*) FILTER (WHERE index_block_hash <> '') > 0`).
			Scan(ctx, &mixed); err != nil {
			t.Fatal(err)
		}
		if len(mixed) == 0 {
			t.Fatalf("%s: the chain has no account with both anchored and unconfirmed transactions", list.name)
		}
		for _, m := range mixed {
			res, err := http.Get(srv.URL + fmt.Sprintf(list.path, m.Principal))
			if err != nil {
				t.Fatal(err)
			}
			var page struct {
				Total   int `json:"total"`
				Results []struct {
					Tx struct {
						BlockHeight  int  `json:"block_height"`
						IsUnanchored bool `json:"is_unanchored"`
					} `json:"tx"`
				} `json:"results"`
			}
			err = json.NewDecoder(res.Body).Decode(&page)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if page.Total != m.Unanchored+m.Anchored || len(page.Results) != page.Total {
				t.Errorf("%s of %s: total %d, %d results; want %d unconfirmed and %d anchored", list.name, m.Principal,
					page.Total, len(page.Results), m.Unanchored, m.Anchored)
				continue
			}
			for i, r := range page.Results {
				if r.Tx.IsUnanchored != (i < m.Unanchored) {
					t.Errorf("%s of %s: result %d (height %d) unanchored %v; want the %d unconfirmed first", list.name, m.Principal,
						i, r.Tx.BlockHeight, r.Tx.IsUnanchored, m.Unanchored)
				}
			}
		}
	}
}
