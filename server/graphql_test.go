package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/server"
)

// statements counts the SQL statements a store runs (a bun query hook).
// statements counts the statements a store runs.
type statements struct{ n atomic.Int64 }

func (s *statements) observe(context.Context, db.Statement) { s.n.Add(1) }

// api is a real HTTP server on loopback over a fresh database.
type api struct {
	url    string
	store  *db.Store
	sql    *statements
	events *notices.Listener // nil unless started to listen
}

func newAPI(t testing.TB, cfg server.Config) *api { return startAPI(t, cfg, false) }

// startAPI starts the API; with listen it also follows ingestion's notices (subscriptions).
func startAPI(t testing.TB, cfg server.Config, listen bool) *api {
	t.Helper()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	cfg.Store = store
	if listen {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		events, err := store.Listen(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Events = events
	}
	h, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &statements{}
	store.Observe(s.observe)
	return &api{url: srv.URL, store: store, sql: s, events: cfg.Events}
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// query posts a GraphQL request and returns the response and the SQL statements it ran.
func (a *api) query(t testing.TB, body map[string]any) (gqlResponse, int64) {
	t.Helper()
	b, _ := json.Marshal(body)
	before := a.sql.n.Load()
	resp, err := http.Post(a.url+"/graphql", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out gqlResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("response %s: %v", raw, err)
	}
	return out, a.sql.n.Load() - before
}

func (a *api) mustQuery(t testing.TB, q string, vars map[string]any) (json.RawMessage, int64) {
	t.Helper()
	out, n := a.query(t, map[string]any{"query": q, "variables": vars})
	if len(out.Errors) > 0 {
		t.Fatalf("query failed: %+v", out.Errors)
	}
	return out.Data, n
}

// The fields collected for one document are shared by its operations with the same values of
// the variables its directives read, and by those alone: requests that include and skip a field
// in turn each get the answer their values select.
func TestCollectedFieldsFollowDirectiveValues(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 2, txsPerBlock: 1, sender: testSender}.seed(t, a.store)
	q := `query($withHash: Boolean!) { blocks(limit: 1) { height hash @include(if: $withHash) } }`
	for _, with := range []bool{true, false, true, false} {
		data, _ := a.mustQuery(t, q, map[string]any{"withHash": with})
		if got := strings.Contains(string(data), `"hash"`); got != with || !strings.Contains(string(data), `"height"`) {
			t.Errorf("withHash %v: answer %s", with, data)
		}
	}
}

// An object read from its parent's row whose selection reads leaves alone, directly or through
// a fragment, is written without the field middleware, which would only pass it on; one that
// selects a field a resolver answers goes through it, and every answer is the same.
func TestRowObjectsSkipTheFieldMiddleware(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	chain{blocks: 2, txsPerBlock: 2, sender: testSender}.seed(t, store)
	h, seen := server.GraphQLRecordingFields(server.Config{Store: store})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	const page = `{ blocksConnection(first: 2) { nodes { transactions(first: 2) { nodes { txId x: sender %s } } } } } %s`
	tests := []struct {
		selection, fragment string
		middleware          bool
	}{
		{`{ principal }`, ``, false},
		{`{ ...A }`, `fragment A on Account { principal }`, false},
		{`{ principal latestTxId }`, ``, true},
	}
	for _, tc := range tests {
		before := len(seen())
		body, _ := json.Marshal(map[string]any{"query": fmt.Sprintf(page, tc.selection, tc.fragment)})
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if senders := strings.Count(string(raw), `"principal":"`+testSender+`"`); senders != 4 || strings.Contains(string(raw), `"errors"`) {
			t.Fatalf("%s: %d senders in %s", tc.selection, senders, raw)
		}
		if got := slices.Contains(seen()[before:], "x"); got != tc.middleware {
			t.Errorf("%s: the sender went through the field middleware: %v, want %v", tc.selection, got, tc.middleware)
		}
	}
}
