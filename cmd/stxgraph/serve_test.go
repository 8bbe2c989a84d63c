package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// startServe runs `serve` on free ports against a fresh database and returns the API base URL.
func startServe(t *testing.T) string {
	t.Helper()
	api, _ := startServeBoth(t)
	return api
}

// startServeBoth is startServe returning the event observer's base URL too.
func startServeBoth(t *testing.T) (api, events string) {
	t.Helper()
	return startServeOn(t, dbtest.URL(t))
}

// startServeOn runs `serve` on free ports against the database at url.
func startServeOn(t *testing.T, url string) (api, events string) {
	t.Helper()
	return startServeWith(t, &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: url})
}

// startServeWith runs `serve` with cfg and returns its API and event observer base URLs.
func startServeWith(t *testing.T, cfg *config) (api, events string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, ready) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve did not stop cleanly: %v", err)
		}
	})
	select {
	case addrs := <-ready:
		return "http://" + addrs[0], "http://" + addrs[1]
	case err := <-done:
		t.Fatalf("serve failed to start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start within 30s")
	}
	return "", ""
}

func getJSON(t *testing.T, url string, out any) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v in %s", url, err, body)
		}
	}
	return resp
}

func TestServeEndToEnd(t *testing.T) {
	base := startServe(t)

	var status struct {
		ServerVersion string `json:"server_version"`
		Status        string `json:"status"`
		ChainTip      struct {
			BlockHeight     *int    `json:"block_height"`
			BlockHash       *string `json:"block_hash"`
			IndexBlockHash  *string `json:"index_block_hash"`
			BurnBlockHeight *int    `json:"burn_block_height"`
		} `json:"chain_tip"`
	}
	if resp := getJSON(t, base+"/extended", &status); resp.StatusCode != 200 {
		t.Fatalf("/extended status %d", resp.StatusCode)
	}
	if status.Status != "ready" || !strings.HasPrefix(status.ServerVersion, "stxgraph") {
		t.Errorf("/extended = %+v", status)
	}
	tip := status.ChainTip
	if tip.BlockHeight == nil || *tip.BlockHeight != 0 || tip.BlockHash == nil || *tip.BlockHash != "0x" ||
		tip.IndexBlockHash == nil || tip.BurnBlockHeight == nil {
		t.Errorf("empty chain tip = %+v, want height 0 and hash 0x", tip)
	}

	body := strings.NewReader(`{"query":"{ chainTip { blockHeight burnBlockHeight } blocks(limit: 5) { height } }"}`)
	resp, err := http.Post(base+"/graphql", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var gql struct {
		Data struct {
			ChainTip struct{ BlockHeight int } `json:"chainTip"`
			Blocks   []any                     `json:"blocks"`
		} `json:"data"`
		Errors []any `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&gql); err != nil {
		t.Fatal(err)
	}
	if len(gql.Errors) > 0 || gql.Data.Blocks == nil || len(gql.Data.Blocks) != 0 {
		t.Errorf("graphql = %+v", gql)
	}

	var bad struct {
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	getJSON(t, base+"/graphql?query="+strings.ReplaceAll("{ blocks(limit: 1000) { height } }", " ", "%20"), &bad)
	if len(bad.Errors) != 1 || bad.Errors[0].Extensions["code"] != "invalid" {
		t.Errorf("over-limit query errors = %+v, want one 'invalid' error", bad.Errors)
	}

	metrics, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(metrics.Body)
	metrics.Body.Close()
	for _, want := range []string{`stxgraph_http_requests_total{code="200",method="GET",route="/extended"} 1`,
		"stxgraph_http_request_duration_seconds_bucket", `go_sql_max_open_connections{db_name="stxgraph"}`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	if resp := getJSON(t, base+"/", nil); resp.StatusCode != 200 {
		t.Errorf("/ status %d", resp.StatusCode)
	}
	if resp := getJSON(t, base+"/graphiql", nil); resp.StatusCode != 200 {
		t.Errorf("/graphiql status %d", resp.StatusCode)
	}
}

// A server that cannot listen stops the ones already serving: runServers returns and nothing of
// it keeps running.
func TestRunServersStopsStartedOnListenFailure(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	first := &http.Server{Addr: "127.0.0.1:0", Handler: http.NotFoundHandler()}
	second := &http.Server{Addr: taken.Addr().String(), Handler: http.NotFoundHandler()}
	if err := runServers(context.Background(), []*http.Server{first, second}, nil); err == nil {
		t.Fatal("runServers succeeded on an address in use")
	}
	serving := make(chan error, 1)
	go func() { serving <- first.ListenAndServe() }()
	select {
	case err := <-serving:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("first server: %v, want it closed", err)
		}
	case <-time.After(5 * time.Second):
		first.Close()
		t.Error("first server was left open")
	}
}

// The soft memory limit leaves the answer cache its bytes on top of the requests' heap, and an
// operator's GOMEMLIMIT and GOGC win over both settings.
func TestTuneGCLimitsTheHeapToTheAnswerCacheAndRequests(t *testing.T) {
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(limit); debug.SetGCPercent(percent) })

	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	for _, cache := range []int64{0, 64 << 20, 1 << 30} {
		tuneGC(cache)
		if got := debug.SetMemoryLimit(-1); got != requestHeap+cache {
			t.Errorf("answer cache of %d bytes: memory limit %d, want %d", cache, got, requestHeap+cache)
		}
		if got := debug.SetGCPercent(gcPercent); got != gcPercent {
			t.Errorf("GOGC %d, want %d", got, gcPercent)
		}
	}

	debug.SetMemoryLimit(123 << 20)
	debug.SetGCPercent(150)
	t.Setenv("GOMEMLIMIT", "123MiB")
	t.Setenv("GOGC", "150")
	tuneGC(64 << 20)
	if got := debug.SetMemoryLimit(-1); got != 123<<20 {
		t.Errorf("GOMEMLIMIT set: memory limit %d, want the operator's %d", got, 123<<20)
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GOGC set: %d, want the operator's 150", got)
	}
}
