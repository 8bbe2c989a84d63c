package server_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/server"
)

// TestPoxQueryPlans explains the statements of the PoX cycle paths on a chain with reward sets
// and pox-4 stacking (epoch-3-transition), as TestQueryPlans does: no history table scanned
// (the cycle's stackers come from the pox-4 events of the cycles around it, by index), no plan
// node touching more than maxPlanRows rows.
func TestPoxQueryPlans(t *testing.T) {
	ctx := context.Background()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	r, c, err := tsv.Open(fixtures.Path(t, "stacks/epoch-3-transition.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := ingest.NewIngester(store).Replay(ctx, r, ingest.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := store.VacuumChainData(ctx); err != nil {
		t.Fatal(err)
	}
	captured := &capturedSQL{}
	store.Observe(captured.observe)
	h, err := server.New(server.Config{Store: store, ServerVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	const signer = "0x038e3c4529395611be9abf6fa3b6987e81d402385e3d605a073f42f407565a4a3d"
	nested := "/graphql?query=" + url.QueryEscape(`{ poxCycles(limit: 4) { results { cycleNumber signers(limit: 3) { total results {
		signingKey soloStackerCount stackers(limit: 2) { total results { stackerAddress poxAddress } } } } } } }`)
	for _, r := range []struct {
		name, path    string
		maxStatements int
	}{
		{"pox-cycles", "/extended/v2/pox/cycles", 3},
		{"pox-cycle", "/extended/v2/pox/cycles/14", 2},
		{"pox-signers", "/extended/v2/pox/cycles/14/signers", 4},
		{"pox-signer", "/extended/v2/pox/cycles/14/signers/" + signer, 3},
		{"pox-stackers", "/extended/v2/pox/cycles/14/signers/" + signer + "/stackers", 5},
		// Every cycle's signers, and every signer's stackers, are read in one batch per level.
		{"graphql-pox-nested", nested, 6},
	} {
		t.Run(r.name, func(t *testing.T) {
			stmts := planRead(t, srv.URL+r.path, store, captured, r.name, nil)
			if len(stmts) > r.maxStatements {
				t.Errorf("%d statements, want at most %d", len(stmts), r.maxStatements)
			}
			if !slices.ContainsFunc(stmts, func(s db.Statement) bool { return strings.Contains(s.Query, "pox_") }) {
				t.Fatal("the read ran no PoX statement")
			}
		})
	}
}
