package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/server"
)

// fuzzPaths are the public paths with their one path parameter written as {}.
var fuzzPaths = []string{
	"/extended/v1/address/{}/stx",
	"/extended/v1/address/{}/transactions_with_transfers",
	"/extended/v1/tx/multiple",
	"/extended/v1/tx/events",
	"/extended/v1/contract/{}/events",
	"/extended/v1/block",
	"/extended/v1/block/by_burn_block_hash/{}",
	"/extended",
	"/extended/v1/status",
	"/graphql",
	"/{}",
	"/extended/v1/{}",
}

// fuzzHandler is the whole public API over the mocknet chain. Fuzzing runs the target many
// times against it, and the chain is only read.
func fuzzHandler(f *testing.F) http.Handler {
	store := db.Open(dbtest.URL(f), db.PoolOptions{MaxOpen: 8})
	f.Cleanup(func() { store.Close() })
	r, c, err := tsv.Open(fixtures.Path(f, "stacks/mocknet.tsv.gz"))
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	if _, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{}); err != nil {
		f.Fatal(err)
	}
	h, err := server.New(server.Config{Store: store, ServerVersion: "fuzz", Introspection: true, QueryTimeout: 20 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// Every REST path and parameter, fed arbitrary path segments and query strings: never a 5xx,
// never a hang, and every 4xx in the reference's error shape.
func FuzzREST(f *testing.F) {
	const contract = "ST000000000000000000002AMW42H.genesis"
	const addr = "ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR"
	const txid = "0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d"
	for _, seed := range []struct {
		path  uint8
		param string
		query string
	}{
		{0, addr, ""},
		{0, addr, "until_block=0x12"},
		{0, addr, "until_block=99999999999999999999"},
		{0, "ST000000000000000000002AMW42H.genesis\x00", ""},
		{0, "ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR\u202e", ""},
		{0, "SP000000000000000000002Q6VF78.\u202egenesis", ""},
		{1, addr, "limit=-1&offset=-5"},
		{1, addr, "limit=99999999999999999999"},
		{1, addr, "offset=9223372036854775807"},
		{1, addr, "height=9223372036854775807"},
		{1, addr, "height=2147483648&limit=50"},
		{2, "", "tx_id=" + txid},
		{2, "", "tx_id=0xzz"},
		{2, "", "tx_id=" + strings.Repeat("0", 64) + "&event_offset=9223372036854775807&event_limit=-1"},
		{2, "", "tx_id=0x" + strings.Repeat("g", 64)},
		{3, "", "address=" + addr + "&offset=9223372036854775807"},
		{3, "", "address=" + addr + "&offset=9223372036854775807&limit=100"},
		{3, "", "tx_id=" + txid + "&limit=999999"},
		{3, "", "address=" + addr + "&type=stx_lock,nothing"},
		{3, "", "address=" + addr + "&tx_id=" + txid},
		{3, "", "address=\x00&offset=-1"},
		{4, contract, ""},
		{4, contract + "\x00", ""},
		{4, contract + "\u202e", ""},
		{4, "ST000000000000000000002AMW42H.\u202egenesis", "offset=9223372036854775807"},
		{4, contract, "limit=-1"},
		{4, "not a contract", ""},
		{5, "", "offset=9223372036854775807"},
		{5, "", "limit=31"},
		{5, "", "limit=18446744073709551616"},
		{6, "0xfe4af4eb44d9b92afdc3113bc3fba48531502d6367ad42de3a7f1d1ea4065ba4", ""},
		{6, "0xzz", ""},
		{6, "0x", ""},
		{6, "12", ""},
		{6, "-1", ""},
		{6, "9223372036854775807", ""},
		{7, "", ""},
		{9, "", "query={__typename}"},
		{9, "", "query={" + strings.Repeat("a:__schema{types{name}} ", 50) + "}"},
		{10, "no/such/path", ""},
		{11, "nothing", "a=b"},
	} {
		f.Add(seed.path, seed.param, seed.query)
	}
	h := fuzzHandler(f)
	f.Fuzz(func(t *testing.T, pathIdx uint8, param, rawQuery string) {
		p := strings.Replace(fuzzPaths[int(pathIdx)%len(fuzzPaths)], "{}", url.PathEscape(param), 1)
		target := p
		if rawQuery != "" {
			target += "?" + rawQuery
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return // not a request line a client can send
		}
		req := httptest.NewRequest(http.MethodGet, "http://stxgraph.test/", nil)
		req.URL = u
		req.RequestURI = target
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req = req.WithContext(ctx)
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, req)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("GET %q: no answer within a minute", target)
		}
		status := rec.Code
		body := rec.Body.Bytes()
		if status >= 500 {
			t.Fatalf("GET %q: status %d: %s", target, status, body)
		}
		if status < 400 || p == "/graphql" {
			return
		}
		var shape struct {
			StatusCode *int    `json:"statusCode"`
			Error      *string `json:"error"`
			Message    *string `json:"message"`
		}
		if err := json.Unmarshal(body, &shape); err != nil {
			t.Fatalf("GET %q: status %d with a body that is not JSON: %q", target, status, body)
		}
		if shape.StatusCode == nil || *shape.StatusCode != status || shape.Error == nil || *shape.Error != http.StatusText(status) ||
			shape.Message == nil || *shape.Message == "" {
			t.Fatalf("GET %q: status %d with a body not in the error shape: %s", target, status, body)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("GET %q: status %d with Content-Type %q", target, status, ct)
		}
	})
}
