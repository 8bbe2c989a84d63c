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

// historyAccounts are three accounts of HistoryChain: the busy one (about 50,000 transfers),
// one of the crowd (a few hundred, enough to fill a page) and the idle one (its genesis mint).
func historyAccounts(tb testing.TB) (names, principals []string) {
	g, err := chaingen.New(HistoryChain)
	if err != nil {
		tb.Fatal(err)
	}
	return []string{"busy", "crowd", "idle"}, []string{g.Busy(), g.Accounts()[2].Address.String(), g.Idle()}
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
	// A balance at an earlier block sums the history up to it (db.StxBalance): expected to grow.
	restRead("rest/stx_until_block", "/extended/v1/address/%s/stx?until_block=900"),
	graphqlRead("graphql/stxBalance", `query($p: String!) { account(principal: $p) { stxBalance { balance totalSent totalReceived totalFeesSent } } }`),
	graphqlRead("graphql/transactionsWithTransfers", `query($p: String!) { account(principal: $p) {
		transactionsWithTransfers(limit: 20) { total results { tx { txId } stxSent stxReceived stxTransfers { amount sender recipient } } } } }`),
	graphqlRead("graphql/events", `query($p: String!) { events(principal: $p, limit: 20) { __typename } }`),
}

// BenchmarkHistory reads three accounts of a 183,000-transaction chain in turn on one
// connection (an op is one read of each) and reports their latencies side by side. The busy
// account and a crowd account both fill a page, so a busy/crowd ratio well above 1 means the
// read's cost grows with the account's history; the idle account (one transaction) is the
// reference's "idle" case.
func BenchmarkHistory(b *testing.B) {
	srv, err := historyServer()
	if err != nil {
		b.Fatal(err)
	}
	names, principals := historyAccounts(b)
	for _, r := range historyReads {
		b.Run(r.name, func(b *testing.B) {
			lat := make([][]time.Duration, len(principals))
			for _, p := range principals { // one unmeasured read each: warm caches, check the answer
				if _, err := timed(srv.Client(), r, srv.URL, p); err != nil {
					b.Skip(err)
				}
			}
			for b.Loop() {
				for i, p := range principals {
					d, err := timed(srv.Client(), r, srv.URL, p)
					if err != nil {
						b.Fatal(err)
					}
					lat[i] = append(lat[i], d)
				}
			}
			for i, name := range names {
				slices.Sort(lat[i])
				b.ReportMetric(ms(Percentile(lat[i], 50)), name+"-p50-ms")
				b.ReportMetric(ms(Percentile(lat[i], 99)), name+"-p99-ms")
			}
			b.ReportMetric(ms(Percentile(lat[0], 50))/ms(Percentile(lat[1], 50)), "busy/crowd")
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

// BenchmarkChainReads times the history chain's reads that name no account, one at a time:
// a page of blocks (61 transactions each), five transactions by id, a contract's events.
func BenchmarkChainReads(b *testing.B) {
	srv, err := historyServer()
	if err != nil {
		b.Fatal(err)
	}
	g, err := chaingen.New(HistoryChain)
	if err != nil {
		b.Fatal(err)
	}
	txids, err := TxIDs(HistoryChain, 5)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range []read{
		restRead("rest/block", "/extended/v1/block%.0s"),
		restRead("rest/tx_multiple", "/extended/v1/tx/multiple?tx_id="+strings.Join(txids, "&tx_id=")+"%.0s"),
		restRead("rest/contract_events", "/extended/v1/contract/%s/events"),
	} {
		b.Run(r.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				d, err := timed(srv.Client(), r, srv.URL, g.ContractID())
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, d)
			}
			slices.Sort(lat)
			b.ReportMetric(ms(Percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(Percentile(lat, 99)), "p99-ms")
		})
	}
}
