package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

// The account reads run a fixed number of statements, prepared ones included: a balance at a
// height answers the ETag's newest transaction ids from its own row, a transactions_with_transfers
// page reads the newest transaction id for its ETag with its rows and its transfers in one
// statement, and a GraphQL account's transaction count comes with its balance row.
func TestAccountReadStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newAPI(t, server.Config{})
	g, err := chaingen.New(chaingen.Options{Seed: 5, Blocks: 12, TxsPerBlock: 8, Accounts: 6, BusyShare: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Replay(ctx, a.store, g, nil); err != nil {
		t.Fatal(err)
	}
	busy := g.Busy()
	var history int
	if err := a.store.DB.NewRaw("SELECT count(*) FROM principal_txs WHERE principal = ? AND canonical AND microblock_canonical", busy).
		Scan(ctx, &history); err != nil {
		t.Fatal(err)
	}

	get := func(path string, out any) int64 {
		t.Helper()
		before := a.store.Statements()
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return a.store.Statements() - before
	}

	var balance struct{ Balance string }
	if n := get("/extended/v1/address/"+busy+"/stx?until_block=6", &balance); n != 1 || balance.Balance == "" {
		t.Errorf("balance at a height: %d statements, balance %q; want 1 statement", n, balance.Balance)
	}
	var page struct {
		Total   int
		Results []struct {
			StxTransfers []struct{ Amount string } `json:"stx_transfers"`
		}
	}
	if n := get("/extended/v1/address/"+busy+"/transactions_with_transfers?limit=5", &page); n != 2 || len(page.Results) != 5 {
		t.Errorf("transactions_with_transfers: %d statements, %d results; want 2 statements, 5 results", n, len(page.Results))
	}
	// A list's ETag names the principal's newest transaction, which the page's statement reads;
	// a page past the end, which reads no row, finds it with the balance row: the same tag. A
	// conditional request reads the tag alone, through the balance row, which names the same: one
	// statement, and no page read.
	tag := func(path string) string {
		t.Helper()
		resp, err := http.Get(a.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("ETag")
	}
	for _, list := range []string{"/extended/v1/address/" + busy + "/transactions_with_transfers", "/extended/v2/addresses/" + busy + "/transactions"} {
		first, past := tag(list+"?limit=5"), tag(list+"?limit=5&offset=100000")
		if first == "" || first != past {
			t.Errorf("%s: ETag of the first page %q, of a page past the end %q; want the same, not empty", list, first, past)
		}
		req, err := http.NewRequest(http.MethodGet, a.url+list+"?limit=4", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("If-None-Match", first)
		before := a.store.Statements()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if n := a.store.Statements() - before; resp.StatusCode != http.StatusNotModified || n != 1 {
			t.Errorf("%s: If-None-Match of the page's ETag: status %d after %d statements, want 304 after the tag's one", list, resp.StatusCode, n)
		}
	}

	before := a.store.Statements()
	data, _ := a.mustQuery(t, `query($p: String!) { account(principal: $p) { stxBalance { balance }
		transactions(first: 3) { totalCount nodes { txId } } } }`, map[string]any{"p": busy})
	var got struct {
		Account struct {
			Transactions struct {
				TotalCount int
				Nodes      []struct{ TxID string }
			}
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if n := a.store.Statements() - before; n != 2 {
		t.Errorf("GraphQL account with its balance and transactions: %d statements, want 2", n)
	}
	if tc := got.Account.Transactions; tc.TotalCount != history || len(tc.Nodes) != 3 {
		t.Errorf("transactions: totalCount %d, %d nodes; want %d, 3", tc.TotalCount, len(tc.Nodes), history)
	}
}
