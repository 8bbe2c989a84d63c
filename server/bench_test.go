package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

// BenchmarkNestedQuery measures nestedQuery over HTTP for growing page sizes with the production
// configuration, reporting SQL statements per request next to the latency.
func BenchmarkNestedQuery(b *testing.B) {
	a := newAPI(b, server.Config{MaxComplexity: 1 << 30})
	chain{blocks: 100, txsPerBlock: 20, eventsPerTx: 2, sender: testSender}.seed(b, a.store)
	for _, n := range []int{1, 10, 30, 100} {
		b.Run(fmt.Sprintf("blocks=%d", n), func(b *testing.B) {
			vars := map[string]any{"n": n}
			var stmts int64
			for b.Loop() {
				_, s := a.mustQuery(b, nestedQuery, vars)
				stmts += s
			}
			b.ReportMetric(float64(stmts)/float64(b.N), "sql/op")
		})
	}
}

// BenchmarkChainReads runs the two GraphQL reads of the load test (the explorer front page and
// the busiest account's page) in-process against the benchmark chain's database, named by
// STXGRAPH_BENCH_DB (loadgen prepare prints it), reporting SQL statements per request; with
// -cpuprofile it shows where the executor spends its time.
func BenchmarkChainReads(b *testing.B) {
	dsn := os.Getenv("STXGRAPH_BENCH_DB")
	if dsn == "" {
		b.Skip("STXGRAPH_BENCH_DB names no benchmark chain database")
	}
	store := db.Open(dsn, db.PoolOptions{MaxOpen: 8})
	b.Cleanup(func() { store.Close() })
	g, err := chaingen.New(bench.HistoryChain)
	if err != nil {
		b.Fatal(err)
	}
	h, err := server.New(server.Config{Store: store, ServerVersion: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	s := &statements{}
	store.Observe(s.observe)
	// Answers are kept per version of the chain state the notices name.
	events, err := store.Listen(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	dbtest.AwaitVersion(b, events, dbtest.NewChainVersion(notices.StateVersion{}))
	withCache := server.Config{Store: store, ServerVersion: "bench", AnswerCacheBytes: 64 << 20, Events: events}
	// A REST path without and with the answer cache.
	cached, err := server.New(withCache)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"rest-blocks", h}, {"rest-blocks/cached", cached}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/extended/v1/block?limit=20", nil)
			before := s.n.Load()
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %.300s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(s.n.Load()-before)/float64(b.N), "sql/op")
		})
	}
	for _, q := range []struct{ name, query string }{
		{"front-page", `{ blocksConnection(first: 20) { nodes { height hash burnBlock { height } transactions(first: 20) { nodes { txId feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } } }`},
		{"account", `{ account(principal: "` + g.Busy() + `") { stxBalance { balance locked } transactions(first: 20) { totalCount nodes { txId blockHeight feeRate } } } }`},
	} {
		b.Run(q.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(q.query), nil)
			before := s.n.Load()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte(`"errors"`)) {
					b.Fatalf("%d %.300s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(s.n.Load()-before)/float64(b.N), "sql/op")
		})
		// The same read as a persisted query with the answer cache on: after the first request
		// each one runs no statement, until the chain moves.
		b.Run(q.name+"/persisted", func(b *testing.B) {
			cached, err := server.New(withCache)
			if err != nil {
				b.Fatal(err)
			}
			sum := sha256.Sum256([]byte(q.query))
			ext := url.QueryEscape(`{"persistedQuery":{"version":1,"sha256Hash":"` + hex.EncodeToString(sum[:]) + `"}}`)
			register := httptest.NewRecorder()
			cached.ServeHTTP(register, httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(q.query)+"&extensions="+ext, nil))
			if register.Code != http.StatusOK || bytes.Contains(register.Body.Bytes(), []byte(`"errors"`)) {
				b.Fatalf("%d %.300s", register.Code, register.Body)
			}
			req := httptest.NewRequest(http.MethodGet, "/graphql?extensions="+ext, nil)
			before := s.n.Load()
			for b.Loop() {
				w := httptest.NewRecorder()
				cached.ServeHTTP(w, req)
				if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), register.Body.Bytes()) {
					b.Fatalf("%d %.300s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(s.n.Load()-before)/float64(b.N), "sql/op")
		})
		// The same read from 32 concurrent requests, as the load test sends it: the statements
		// per request show whether each level still runs as one batch under contention.
		b.Run(q.name+"/concurrent", func(b *testing.B) {
			before := s.n.Load()
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(q.query), nil)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Errorf("%d %.300s", w.Code, w.Body)
					}
				}
			})
			b.ReportMetric(float64(s.n.Load()-before)/float64(b.N), "sql/op")
		})
	}
}
