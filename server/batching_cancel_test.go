package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/server"
)

// frontPageQuery is an explorer's front page: blocks, their transactions and those's events.
const frontPageQuery = `{ blocksConnection(first: 20) { nodes { height hash burnBlock { height }
  transactions(first: 20) { nodes { txId feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } } }`

// frontPageStatements is what frontPageQuery runs: the blocks page with their burn blocks, then
// one statement per edge (transactions, events).
const frontPageStatements = 3

// perRequest counts each request's statements (bun's query hook sees the request's context in
// the resolvers' and the loaders' statements) and, for a request marked so, ends the request
// (as a client hanging up does) once its first statement has returned.
type perRequest struct{}

type requestStats struct {
	statements  atomic.Int64
	cancelAfter int64 // end the request after this many statements (0: never)
	cancel      context.CancelFunc
}

type requestStatsKey struct{}

func (perRequest) observe(ctx context.Context, _ db.Statement) {
	if st, ok := ctx.Value(requestStatsKey{}).(*requestStats); ok {
		if n := st.statements.Add(1); n == st.cancelAfter {
			st.cancel()
		}
	}
}

// Over HTTP, a request whose client is gone (a load generator's cut-off requests, a browser
// navigating away) must not turn its remaining reads into one statement per field: the
// scheduler dispatches an ended request's keys as soon as they are asked for, so without a
// check the rest of its tree ran key by key. Half the concurrent requests below end after their
// first statement and must run no other; the rest keep their per-level batches.
func TestEndedRequestsRunNoFurtherStatements(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	chain{blocks: 20, txsPerBlock: 5, eventsPerTx: 2, sender: testSender}.seed(t, store)
	store.Observe(perRequest{}.observe)
	h, err := server.New(server.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stats []*requestStats
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		st := &requestStats{cancel: cancel}
		if r.URL.Query().Get("end") != "" {
			st.cancelAfter = 1
		}
		mu.Lock()
		stats = append(stats, st)
		mu.Unlock()
		h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, requestStatsKey{}, st)))
	}))
	t.Cleanup(srv.Close)

	const requests = 32
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := srv.URL + "/graphql?query=" + url.QueryEscape(frontPageQuery)
			if i%2 == 1 {
				u += "&end=1"
			}
			resp, err := http.Get(u)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var got gqlResponse
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Error(err)
				return
			}
			if ended := i%2 == 1; ended != (len(got.Errors) > 0) {
				t.Errorf("request %d (ended: %v): errors %+v", i, ended, got.Errors)
			}
			for _, e := range got.Errors {
				if e.Extensions["code"] != "canceled" {
					t.Errorf("request %d ended with %q (%v); want the code canceled", i, e.Message, e.Extensions["code"])
				}
			}
		}()
	}
	wg.Wait()
	// A REST path whose client went away is logged as such (499), not as a server failure.
	resp, err := http.Get(srv.URL + "/extended/v1/block?limit=5&end=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 499 {
		t.Errorf("REST read ended after its first statement: status %d, want 499", resp.StatusCode)
	}
	stats = stats[:len(stats)-1]
	if len(stats) != requests {
		t.Fatalf("%d requests reached the server, want %d", len(stats), requests)
	}
	for i, st := range stats {
		want := int64(frontPageStatements)
		if st.cancelAfter > 0 {
			want = st.cancelAfter
		}
		if got := st.statements.Load(); got != want {
			t.Errorf("request %d (ended after %d statements): %d statements, want %d", i, st.cancelAfter, got, want)
		}
	}
}
