package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

var rebuild = flag.Bool("rebuild", false, "wipe and replay the cached history-chain database first")

// historyServer serves the HistoryChain database through the real HTTP server on loopback,
// once per process: the first run builds the database (minutes), later runs find it.
var historyServer = sync.OnceValues(func() (*httptest.Server, error) {
	dsn, err := ChainDB(context.Background(), HistoryChain, *rebuild, func(p ingest.Progress) {
		fmt.Printf("building the history chain: %d blocks in %s\n", p.Blocks, p.Elapsed.Round(time.Second))
	})
	if err != nil {
		return nil, err
	}
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the server logs every request
	h, err := server.New(server.Config{Store: db.Open(dsn, db.PoolOptions{MaxOpen: 32}), ServerVersion: "bench"})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(h), nil
})

// historyAccounts are the busy and the idle account of HistoryChain.
func historyAccounts(tb testing.TB) (busy, idle string) {
	g, err := chaingen.New(HistoryChain)
	if err != nil {
		tb.Fatal(err)
	}
	return g.Busy(), g.Idle()
}

// read is one way of reading an account: a REST path or a GraphQL query.
type read struct {
	name string
	// request builds the request for a principal.
	request func(base, principal string) (*http.Request, error)
}

func restRead(name, pathFormat string) read {
	return read{name, func(base, p string) (*http.Request, error) {
		return http.NewRequest(http.MethodGet, base+fmt.Sprintf(pathFormat, url.PathEscape(p)), nil)
	}}
}

func graphqlRead(name, query string) read {
	return read{name, func(base, p string) (*http.Request, error) {
		body, err := json.Marshal(map[string]any{"query": query, "variables": map[string]string{"p": p}})
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}}
}

var historyReads = []read{
	restRead("rest/stx", "/extended/v1/address/%s/stx"),
	restRead("rest/transactions_with_transfers", "/extended/v1/address/%s/transactions_with_transfers"),
	restRead("rest/tx_events", "/extended/v1/tx/events?address=%s"),
	graphqlRead("graphql/stxBalance", `query($p: String!) { account(principal: $p) { stxBalance { balance totalSent totalReceived totalFeesSent } } }`),
	graphqlRead("graphql/transactionsWithTransfers", `query($p: String!) { account(principal: $p) {
		transactionsWithTransfers(limit: 20) { total results { tx { txId } stxSent stxReceived stxTransfers { amount sender recipient } } } } }`),
	graphqlRead("graphql/events", `query($p: String!) { events(principal: $p, limit: 20) { __typename } }`),
}

// BenchmarkHistory reads the busy account (about 50,000 transfers) and the idle one (only its
// genesis mint) of a 183,000-transaction chain, alternately on one connection, and reports
// both latencies side by side: a read whose cost grows with history shows a busy/idle ratio
// well above 1.
func BenchmarkHistory(b *testing.B) {
	srv, err := historyServer()
	if err != nil {
		b.Fatal(err)
	}
	busy, idle := historyAccounts(b)
	for _, r := range historyReads {
		b.Run(r.name, func(b *testing.B) {
			var lat [2][]time.Duration
			for _, who := range []string{busy, idle} { // one unmeasured request each: warm caches, check the answer
				if _, err := timed(srv.Client(), r, srv.URL, who); err != nil {
					b.Skip(err)
				}
			}
			for b.Loop() {
				for i, who := range []string{busy, idle} {
					d, err := timed(srv.Client(), r, srv.URL, who)
					if err != nil {
						b.Fatal(err)
					}
					lat[i] = append(lat[i], d)
				}
			}
			for i, who := range []string{"busy", "idle"} {
				slices.Sort(lat[i])
				b.ReportMetric(ms(Percentile(lat[i], 50)), who+"-p50-ms")
				b.ReportMetric(ms(Percentile(lat[i], 99)), who+"-p99-ms")
			}
			b.ReportMetric(ms(Percentile(lat[0], 50))/ms(Percentile(lat[1], 50)), "busy/idle")
		})
	}
}

// timed runs one read and returns its latency; an answer other than 200, or a GraphQL error,
// is an error.
func timed(c *http.Client, r read, base, principal string) (time.Duration, error) {
	req, err := r.request(base, principal)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(body, []byte(`"errors":[`)) {
		return 0, fmt.Errorf("%s %s: HTTP %d: %.300s", req.Method, req.URL.Path, resp.StatusCode, body)
	}
	return d, nil
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// TestHistoryChainAccounts guards the benchmark's premise on a small chain of the same shape:
// the busy account takes part in about BusyShare of the transfers.
func TestHistoryChainAccounts(t *testing.T) {
	t.Parallel()
	o := HistoryChain
	o.Blocks = 20
	g, err := chaingen.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Each(func(chaingen.Message) error { return nil }); err != nil {
		t.Fatal(err)
	}
	st := g.Stats()
	share := float64(st.BusyTransfers) / float64(st.Transfers)
	if share < o.BusyShare*0.8 || share > o.BusyShare*1.2 || !strings.HasPrefix(g.Busy(), "ST") {
		t.Errorf("busy account %s in %d of %d transfers, want a share near %.3f", g.Busy(), st.BusyTransfers, st.Transfers, o.BusyShare)
	}
}
