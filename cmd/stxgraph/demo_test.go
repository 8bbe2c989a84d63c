package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

var smallDemo = chaingen.Options{Seed: 5, Blocks: 8, TxsPerBlock: 2, Accounts: 6, BusyShare: 0.5,
	ContractCallsPerBlock: 1, ForkAt: 4, MempoolTxs: 2}

func tipHeight(t *testing.T, api string) int {
	t.Helper()
	var status struct {
		ChainTip struct {
			BlockHeight *int `json:"block_height"`
		} `json:"chain_tip"`
	}
	getJSON(t, api+"/extended", &status)
	if status.ChainTip.BlockHeight == nil {
		return 0
	}
	return *status.ChainTip.BlockHeight
}

// postBlock posts an (empty) block message as a stacks-node would, returning status and body.
func postBlock(t *testing.T, events string) (int, string) {
	t.Helper()
	resp, err := http.Post(events+"/new_block", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// serve --demo loads the demo chain into an empty database and serves it; the event observer
// refuses a stacks-node with a clear error; a later plain serve of that database loads nothing
// more and still refuses the node.
func TestServeDemo(t *testing.T) {
	dsn := dbtest.URL(t)
	cfg := &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: dsn,
		demo: true, demoChain: smallDemo}
	api, events := startServeWith(t, cfg)
	if h := tipHeight(t, api); h != smallDemo.Blocks+1 {
		t.Fatalf("demo chain tip at %d, want %d", h, smallDemo.Blocks+1)
	}
	status, body := postBlock(t, events)
	var refusal struct{ Error string }
	if err := json.Unmarshal([]byte(body), &refusal); err != nil || status != http.StatusConflict ||
		!strings.Contains(refusal.Error, "demo chain") || !strings.Contains(refusal.Error, "--database-url") {
		t.Fatalf("a node posting to the demo database got %d %s; want 409 saying the database holds the demo chain", status, body)
	}
	// The GraphiQL account example opens on the demo's busiest account.
	page := getBody(t, api+"/graphiql")
	g, _ := chaingen.New(smallDemo)
	if !strings.Contains(page, g.Busy()) {
		t.Errorf("GraphiQL's account example does not name the demo's busy account %s", g.Busy())
	}

	plain := &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: dsn}
	api2, events2 := startServeWith(t, plain)
	if h := tipHeight(t, api2); h != smallDemo.Blocks+1 {
		t.Errorf("plain serve of the demo database: tip at %d, want %d", h, smallDemo.Blocks+1)
	}
	if status, body := postBlock(t, events2); status != http.StatusConflict {
		t.Errorf("plain serve of the demo database took a node's message: %d %s", status, body)
	}
}

// Plain serve never invents data: an empty database stays empty and takes a node's messages.
func TestServeWithoutDemoLoadsNothing(t *testing.T) {
	dsn := dbtest.URL(t)
	api, events := startServeWith(t, &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: dsn})
	if h := tipHeight(t, api); h != 0 {
		t.Fatalf("plain serve shows a chain of height %d on an empty database", h)
	}
	if status, body := postBlock(t, events); status == http.StatusConflict {
		t.Errorf("plain serve refused a node: %s", body)
	}
	store := db.Open(dsn, db.PoolOptions{MaxOpen: 1})
	defer store.Close()
	holds, err := store.HoldsChain(context.Background())
	if err != nil || holds {
		t.Errorf("plain serve stored a chain (%v, %v)", holds, err)
	}
	if mark, err := store.DemoChain(context.Background()); err != nil || mark != nil {
		t.Errorf("plain serve marked the database as a demo: %+v %v", mark, err)
	}
}

// serve --demo refuses a mainnet chain id and a database that holds a chain, and stops.
func TestServeDemoRefused(t *testing.T) {
	mainnet := &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x00000001, databaseURL: dbtest.URL(t),
		demo: true, demoChain: smallDemo}
	if err := serve(context.Background(), mainnet, nil); err == nil || !strings.Contains(err.Error(), "mainnet") {
		t.Errorf("serve --demo on mainnet: %v; want a refusal naming mainnet", err)
	}

	dsn := dbtest.URL(t)
	_, events := startServeWith(t, &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: dsn})
	g, _ := chaingen.New(chaingen.Options{Seed: 8, Blocks: 1, TxsPerBlock: 1, Accounts: 4})
	for range 2 { // a node's first burn block and block
		m, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(events+m.Path, "application/json", strings.NewReader(string(m.Payload)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", m.Path, resp.StatusCode)
		}
	}
	held := &config{apiHost: "127.0.0.1", eventHost: "127.0.0.1", chainID: 0x80000000, databaseURL: dsn,
		demo: true, demoChain: smallDemo}
	if err := serve(context.Background(), held, nil); err == nil || !strings.Contains(err.Error(), "already holds a chain") {
		t.Errorf("serve --demo on a database with a chain: %v; want a refusal", err)
	}
}

// --demo without a database chooses the demo database, never the default one.
func TestDemoDatabaseDefault(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("PG_DATABASE", "")
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.serveFlags(fs)
	if err := parseFlags(fs, []string{"--demo"}); err != nil {
		t.Fatal(err)
	}
	if databaseGiven(fs) {
		t.Fatal("no database was given")
	}
	dsn, err := withDatabase(cfg.databaseURL, demoDatabase)
	if err != nil || databaseName(dsn) != demoDatabase {
		t.Errorf("demo database URL %q (%v)", dsn, err)
	}
	fs2 := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.serveFlags(fs2)
	if err := parseFlags(fs2, []string{"--demo", "--database-url", "postgres://127.0.0.1/mine"}); err != nil || !databaseGiven(fs2) {
		t.Errorf("--database-url is not seen as given (%v)", err)
	}
}

func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
