package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	stxserver "github.com/stxgraph/stxgraph/server"
	"github.com/stxgraph/stxgraph/stacks/node"
)

// apiServer is an API server on loopback over one database that a test can kill: every
// connection it holds, websockets and database sessions included, is cut at once.
type apiServer struct {
	srv   *httptest.Server
	stop  context.CancelFunc
	mu    sync.Mutex
	conns []net.Conn
	dsn   string // the database, naming this server as its sessions' application
	name  string
}

var apiServers atomic.Int64

func startAPIServer(t *testing.T, dsn string, cfg stxserver.Config) *apiServer {
	t.Helper()
	a := &apiServer{name: "chaos-api-" + strconv.FormatInt(apiServers.Add(1), 10), dsn: dsn}
	store := db.Open(dsn+"&application_name="+a.name, db.PoolOptions{MaxOpen: 4})
	ctx, cancel := context.WithCancel(context.Background())
	events, err := store.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Events, cfg.ServerVersion = store, events, "chaos test"
	if cfg.Faucet == nil {
		cfg.Faucet = faucet.New(faucet.Config{Store: store, ChainID: 0x80000000})
	}
	h, err := stxserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.srv = httptest.NewUnstartedServer(h)
	a.srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			a.mu.Lock()
			a.conns = append(a.conns, c)
			a.mu.Unlock()
		}
	}
	a.stop = func() {
		cancel()
		store.Close()
	}
	a.srv.Start()
	t.Cleanup(a.kill)
	return a
}

// kill stops listening and cuts every connection, as the death of the process does.
func (a *apiServer) kill() {
	a.srv.Listener.Close()
	a.mu.Lock()
	for _, c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	var n int
	if err := queryRow(context.Background(), a.dsn, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1`, &n, a.name); err != nil {
		panic(err)
	}
	go func() { // requests still running end on their cut database sessions
		a.srv.Close()
		a.stop()
	}()
}

// A subscriber whose API server dies resumes on another one after the last position it has:
// it gets every block exactly once and in order, as the notice log has them.
func TestSubscriberResumesAcrossAPIRestart(t *testing.T) {
	t.Parallel()
	dsn := dbtest.URL(t)
	store := db.Open(dsn, db.PoolOptions{MaxOpen: 4})
	defer store.Close()
	events := httptest.NewServer(ingest.NewServer(store, ingest.Options{}))
	defer events.Close()
	chainNode := newChainNode(events.URL)
	g, err := chaingen.New(chaingen.Options{Seed: 3, Blocks: 10, TxsPerBlock: 2, Accounts: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	postBlocks := func(n int) {
		for blocks := 0; blocks < n; {
			m, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !chainNode.deliver(ctx, m) {
				t.Fatal(ctx.Err())
			}
			if m.Path == chaingen.PathNewBlock {
				blocks++
			}
		}
	}

	first := startAPIServer(t, dsn, stxserver.Config{})
	var apiURL atomic.Value
	apiURL.Store(first.srv.URL)
	sub := newSubscriber("blocks", "blocks", "", feedStart, func() string { return apiURL.Load().(string) })
	subCtx, stopSub := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); sub.run(subCtx) }()
	defer func() { stopSub(); <-done }()

	postBlocks(4)
	awaitItems(t, sub, 4)
	first.kill()
	postBlocks(3) // while no server runs
	second := startAPIServer(t, dsn, stxserver.Config{})
	apiURL.Store(second.srv.URL)
	postBlocks(4)
	awaitItems(t, sub, 11)

	feeds, err := noticeFeeds(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if len(feeds["blocks"]) != 11 {
		t.Fatalf("the notice log has %d block items, want 11 (genesis and 10 blocks)", len(feeds["blocks"]))
	}
	if err := checkFeed(sub.received(), feeds["blocks"]); err != nil {
		t.Error(err)
	}
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.resumes == 0 {
		t.Error("the subscriber never lost its connection")
	}
}

// awaitItems waits until the subscriber holds n items.
func awaitItems(t *testing.T, s *subscriber, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(s.received()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("subscriber has %d items after 30s, want %d (errors %v)", len(s.received()), n, s.errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A faucet request whose API server dies after the node took the payout, before answering,
// is retried under its Idempotency-Key on another server: the answer is the same transaction,
// and the node holds one transfer to the recipient.
func TestFaucetRetryAcrossKilledAPI(t *testing.T) {
	t.Parallel()
	dsn := dbtest.URL(t)
	fn, err := startFaucetNode()
	if err != nil {
		t.Fatal(err)
	}
	defer fn.close()
	// Between the API and the node: the first broadcast reaches the node, and its answer waits
	// until the test has killed the server that sent it.
	target, _ := url.Parse(fn.url)
	proxy := httputil.NewSingleHostReverseProxy(target)
	accepted, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPost && held.CompareAndSwap(false, true) {
			close(accepted)
			<-release
		}
		return nil
	}
	nodeProxy := httptest.NewServer(proxy)
	defer nodeProxy.Close()
	defer close(release)

	withFaucet := func() stxserver.Config {
		store := db.Open(dsn, db.PoolOptions{MaxOpen: 4})
		t.Cleanup(func() { store.Close() })
		stx, err := faucet.NewSTX(faucet.STXConfig{Node: node.New(nodeProxy.URL, nil), Store: store,
			Keys: []string{chaosFaucetKey}, ChainID: 0x80000000})
		if err != nil {
			t.Fatal(err)
		}
		return stxserver.Config{Faucet: faucet.New(faucet.Config{Store: store, ChainID: 0x80000000, STX: stx})}
	}
	key, recipient := newKey(), randomRecipient()
	ask := func(api string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodPost, api+"/extended/v1/faucets/stx?address="+recipient, nil)
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var a struct {
			TxID string `json:"txId"`
		}
		json.Unmarshal(b, &a) //nolint:errcheck // an empty txId fails the test
		return resp.StatusCode, a.TxID, nil
	}

	first := startAPIServer(t, dsn, withFaucet())
	lost := make(chan error, 1)
	go func() {
		status, _, err := ask(first.srv.URL)
		if err == nil {
			lost <- nil
			t.Errorf("the first request was answered %d though its server died", status)
			return
		}
		lost <- err
	}()
	<-accepted
	first.kill()
	if err := <-lost; err == nil {
		t.Fatal("no lost answer")
	}

	second := startAPIServer(t, dsn, withFaucet())
	status, txID, err := ask(second.srv.URL)
	if err != nil || status != http.StatusOK {
		t.Fatalf("retry: %d %v", status, err)
	}
	again, txID2, err := ask(second.srv.URL)
	if err != nil || again != http.StatusOK || txID2 != txID {
		t.Errorf("second retry: %d %q %v, want 200 and %q", again, txID2, err, txID)
	}
	paid := fn.payouts(recipient)
	if len(paid) != 1 || paid[0] != strings.TrimPrefix(txID, "0x") {
		t.Errorf("the node took %v for the recipient, want once %s", paid, txID)
	}
}

// The feed check tells a complete feed from one with a gap, a duplicate, an item the feed does
// not have, or a subscriber that stopped early.
func TestCheckFeed(t *testing.T) {
	t.Parallel()
	want := []feedPosition{{1, 0}, {3, 0}, {3, 1}, {7, 0}}
	cases := []struct {
		name string
		got  []feedPosition
		ok   bool
	}{
		{"complete", want, true},
		{"gap", []feedPosition{{1, 0}, {3, 1}, {7, 0}}, false},
		{"duplicate", []feedPosition{{1, 0}, {3, 0}, {3, 0}, {3, 1}, {7, 0}}, false},
		{"out of order", []feedPosition{{1, 0}, {3, 1}, {3, 0}, {7, 0}}, false},
		{"not in the feed", []feedPosition{{1, 0}, {3, 0}, {3, 1}, {7, 0}, {8, 0}}, false},
		{"stopped early", want[:3], false},
		{"nothing", nil, false},
	}
	for _, c := range cases {
		if err := checkFeed(c.got, want); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := checkFeed(nil, nil); err != nil {
		t.Errorf("an empty feed: %v", err)
	}
}
