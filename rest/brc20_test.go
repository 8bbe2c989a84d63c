package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/internal/inscriptionfeed"
	"github.com/stxgraph/stxgraph/rest"
)

// ingestSample applies the sample inscription history through the inscription ingestion.
func ingestSample(t testing.TB) *db.Store {
	t.Helper()
	store := replay(t, "")
	applyInscriptionSample(t, store)
	return store
}

// applyInscriptionSample applies the sample inscription history to store.
func applyInscriptionSample(t testing.TB, store *db.Store) {
	t.Helper()
	for _, b := range inscriptionfeed.Sample() {
		if err := inscriptionfeed.Apply(context.Background(), store, b.Payload()); err != nil {
			t.Fatal(err)
		}
	}
}

// brc20Calls cover every BRC-20 path with its parameters, paging and errors.
var brc20Calls = []call{
	{"token", "/ordinals/v1/brc-20/tokens/ordi"},
	{"token-upper-case", "/ordinals/v1/brc-20/tokens/ORDI"},
	{"token-decimals-2", "/ordinals/v1/brc-20/tokens/dec2"},
	{"token-percent-encoded", "/ordinals/v1/brc-20/tokens/%44%65%63%32"},
	{"token-non-ascii-upper-case", "/ordinals/v1/brc-20/tokens/%C3%84BC"},
	{"token-non-ascii", "/ordinals/v1/brc-20/tokens/%C3%A4bc"},
	{"tokens-prefix-non-ascii", "/ordinals/v1/brc-20/tokens?ticker=%C3%84"},
	{"token-without-v1", "/ordinals/brc-20/tokens/ordi"},
	{"token-trailing-slash", "/ordinals/v1/brc-20/tokens/ordi/"},
	{"token-unknown", "/ordinals/v1/brc-20/tokens/zzzz"},
	{"token-too-long", "/ordinals/v1/brc-20/tokens/toolongticker"},
	{"token-not-utf8", "/ordinals/v1/brc-20/tokens/%FF%FEab"},
	{"tokens", "/ordinals/v1/brc-20/tokens"},
	{"tokens-by-tx-count", "/ordinals/v1/brc-20/tokens?order_by=tx_count"},
	{"tokens-prefix", "/ordinals/v1/brc-20/tokens?ticker=OR"},
	{"tokens-prefixes", "/ordinals/v1/brc-20/tokens?ticker=d&ticker=o&order_by=index"},
	{"tokens-prefix-wildcard", "/ordinals/v1/brc-20/tokens?ticker=_rdi"},
	{"tokens-page", "/ordinals/v1/brc-20/tokens?limit=1&offset=1"},
	{"tokens-past-end", "/ordinals/v1/brc-20/tokens?offset=5"},
	{"tokens-limit-zero", "/ordinals/v1/brc-20/tokens?limit=0"},
	{"tokens-limit-over", "/ordinals/v1/brc-20/tokens?limit=61"},
	{"tokens-limit-not-integer", "/ordinals/v1/brc-20/tokens?limit=ten"},
	{"tokens-offset-negative", "/ordinals/v1/brc-20/tokens?offset=-1"},
	{"tokens-bad-order", "/ordinals/v1/brc-20/tokens?order_by=holders"},
	{"holders", "/ordinals/v1/brc-20/tokens/ORDI/holders"},
	{"holders-page", "/ordinals/v1/brc-20/tokens/ordi/holders?limit=2&offset=1"},
	{"holders-unknown", "/ordinals/v1/brc-20/tokens/zzzz/holders"},
	{"balances", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice},
	{"balances-at-height", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice + "?block_height=779833"},
	{"balances-before-any", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice + "?block_height=779832"},
	{"balances-prefix", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice + "?ticker=DE"},
	{"balances-transferable", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Bob},
	{"balances-unknown-address", "/ordinals/v1/brc-20/balances/bc1qnobody"},
	{"balances-bad-height", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice + "?block_height=12a"},
	{"transferable", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Bob + "/transferable"},
	{"transferable-other-ticker", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Bob + "/transferable?ticker=dec2"},
	{"transferable-none", "/ordinals/v1/brc-20/balances/" + inscriptionfeed.Alice + "/transferable"},
	{"activity", "/ordinals/v1/brc-20/activity"},
	{"activity-page", "/ordinals/v1/brc-20/activity?limit=3&offset=2"},
	{"activity-ticker", "/ordinals/v1/brc-20/activity?ticker=DEC2"},
	{"activity-sends", "/ordinals/v1/brc-20/activity?ticker=ordi&operation=transfer_send"},
	{"activity-operations", "/ordinals/v1/brc-20/activity?operation=deploy&operation=transfer"},
	{"activity-address", "/ordinals/v1/brc-20/activity?address=" + inscriptionfeed.Carol},
	{"activity-block", "/ordinals/v1/brc-20/activity?block_height=779833&limit=2"},
	{"activity-bad-operation", "/ordinals/v1/brc-20/activity?operation=transfer_receive"},
}

// TestBrc20Golden records every BRC-20 path's response on the sample history.
func TestBrc20Golden(t *testing.T) {
	t.Parallel()
	srv := serve(t, ingestSample(t), rest.Options{ServerVersion: "test"})
	for _, c := range brc20Calls {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + c.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			golden(t, filepath.Join("testdata", "brc20", c.name+".json"), record(t, resp))
		})
	}
}

// getJSON decodes the body of a GET into out and returns the status.
func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}
