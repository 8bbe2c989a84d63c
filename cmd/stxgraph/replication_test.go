package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

// miner is the mocknet miner, with a coinbase in every block.
const miner = "ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH"

// One ingesting process writes a PostgreSQL primary; two `serve --no-ingest` processes read from
// a streaming replica of it. They answer what the writer answers, report the replication lag,
// send the faucets' rows to the primary, and push a new block to their subscribers only once
// the replica has replayed it.
func TestServeReplicaScaleOut(t *testing.T) {
	t.Parallel()
	primary, replica := dbtest.StartReplicated(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	recs := mocknetRecords(t, 28)

	writer, events := startServeWith(t, serveConfig(t, "--host", "127.0.0.1", "--port", "0", "--event-host", "127.0.0.1",
		"--event-port", "0", "--database-url", primary.URL("stxgraph")))
	for _, rec := range recs[:27] {
		postEvent(t, events, rec)
	}

	// The faucets' stacks-node: every request reaching it proves the rate-limit row before it
	// was written, which only the primary can take.
	var nodeHits atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nodeHits.Add(1)
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	defer node.Close()
	_, nodePort, _ := net.SplitHostPort(node.Listener.Addr().String())

	var apis []string
	for range 2 {
		api, observer := startServeWith(t, serveConfig(t, "--no-ingest", "--host", "127.0.0.1", "--port", "0",
			"--database-url", primary.URL("stxgraph"), "--database-read-url", replica.URL("stxgraph"),
			"--faucet-private-key", "7287ba251d44a4d3fd9276c88ce34c5c52a038955511cccaf77e61068649c17801",
			"--faucet-node-host", "127.0.0.1", "--faucet-node-port", nodePort))
		if observer != "http://" {
			t.Errorf("a --no-ingest process listens for events at %s", observer)
		}
		apis = append(apis, api)
	}

	// Reads: once the replica has the writer's tip, every answer is the writer's.
	for _, api := range apis {
		waitTip(t, ctx, api, 27)
	}
	reads := []string{
		"/extended/v1/block?limit=30",
		"/extended/v1/address/" + miner + "/stx",
		"/extended/v1/address/" + miner + "/transactions_with_transfers?limit=10",
	}
	gql := `{ blocksConnection(first: 30) { nodes { height hash burnBlock { height } transactions(first: 20) { totalCount nodes { txId feeRate sender { principal } } } } }
		account(principal: "` + miner + `") { stxBalance { balance locked } transactions(first: 20) { totalCount nodes { txId blockHeight } } } }`
	want := graphQL(t, writer, gql)
	if n := strings.Count(string(want), `"burnBlock"`); n != 27 {
		t.Fatalf("the writer lists %d blocks, want 27: %s", n, want)
	}
	for _, api := range apis {
		for _, path := range reads {
			if got, want := get(t, api+path), get(t, writer+path); !bytes.Equal(got, want) {
				t.Errorf("GET %s from the replica:\n%s\nfrom the writer:\n%s", path, got, want)
			}
		}
		if got := graphQL(t, api, gql); !bytes.Equal(got, want) {
			t.Errorf("GraphQL from the replica:\n%s\nfrom the writer:\n%s", got, want)
		}
	}
	if st := status(t, writer); st.Replication != nil {
		t.Errorf("the writer reads the primary but reports replication %+v", st.Replication)
	}
	if st := status(t, apis[0]); st.Replication == nil || st.Replication.ReplayLSN == "" || st.Replication.LagBytes == nil {
		t.Errorf("/extended of a replica reader reports no replication lag: %+v", st.Replication)
	}

	// Faucet: its rows go to the primary (a replica would refuse them with an internal error).
	resp, err := http.Post(apis[0]+"/extended/v1/faucets/stx?address="+miner, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || nodeHits.Load() == 0 {
		t.Errorf("faucet with its node down = %d %s after %d node requests, want 503 after asking the node", resp.StatusCode, body, nodeHits.Load())
	}
	primaryDB := db.Open(primary.URL("stxgraph"), db.PoolOptions{})
	defer primaryDB.Close()
	replicaDB := db.Open(replica.URL("stxgraph"), db.PoolOptions{})
	defer replicaDB.Close()
	var reserved bool
	if err := primaryDB.DB.QueryRowContext(ctx, "SELECT is_called FROM faucet_requests_id_seq").Scan(&reserved); err != nil || !reserved {
		t.Errorf("no faucet row was reserved on the primary: %v %v", reserved, err)
	}

	// Subscriptions: both API processes hear the primary's notices.
	var subs []*blockSubscriber
	for _, api := range apis {
		subs = append(subs, subscribeBlocks(t, ctx, api))
	}
	var tipHash []byte
	if err := primaryDB.DB.QueryRowContext(ctx, "SELECT index_block_hash FROM chain_tip").Scan(&tipHash); err != nil {
		t.Fatal(err)
	}
	stop := reannounceTip(ctx, primaryDB, tipHash, 27)
	for _, s := range subs {
		for s.next(t).Height != 27 {
		}
	}
	stop()
	for _, api := range apis {
		waitHeld(t, ctx, api, func(n int) bool { return n == 0 })
	}

	// With the replica's replay paused, block 28 is committed on the primary and its notice heard,
	// but held: nobody is told of a block the replica cannot show yet.
	execSQL(t, ctx, replicaDB, "SELECT pg_wal_replay_pause()")
	postEvent(t, events, recs[27])
	block28 := `{ block(height: 28) { hash } }`
	wantBlock := graphQL(t, writer, block28)
	if !strings.Contains(string(wantBlock), `"hash":"0x`) {
		t.Fatalf("the writer has no block 28: %s", wantBlock)
	}
	for i, api := range apis {
		waitHeld(t, ctx, api, func(n int) bool { return n > 0 })
		if got := graphQL(t, api, block28); !strings.Contains(string(got), `"block":null`) {
			t.Errorf("API %d reads block 28 while the replica's replay is paused: %s", i, got)
		}
		for _, b := range subs[i].pending() {
			if b.Height != 27 {
				t.Errorf("API %d pushed block %d before the replica replayed it", i, b.Height)
			}
		}
	}
	// The lag in seconds shows once the replica has received what it does not replay.
	for {
		st := status(t, apis[0])
		if st.Replication == nil || st.Replication.LagBytes == nil || *st.Replication.LagBytes <= 0 || st.Replication.LagSeconds == nil {
			t.Fatalf("/extended with replay paused behind a block reports %+v, want bytes of lag", st.Replication)
		}
		if *st.Replication.LagSeconds > 0 {
			break
		}
		sleep(t, ctx)
	}
	execSQL(t, ctx, replicaDB, "SELECT pg_wal_replay_resume()")
	for i, s := range subs {
		b := s.next(t)
		for b.Height == 27 {
			b = s.next(t)
		}
		if b.Height != 28 || !strings.Contains(string(wantBlock), `"hash":"`+b.Hash+`"`) {
			t.Errorf("API %d pushed %+v, want block 28 of %s", i, b, wantBlock)
		}
		if got := graphQL(t, apis[i], block28); !bytes.Equal(got, wantBlock) {
			t.Errorf("API %d reads block 28 after pushing it as %s, want %s", i, got, wantBlock)
		}
	}
}

// serveConfig is the configuration `stxgraph serve args…` runs with.
func serveConfig(t *testing.T, args ...string) *config {
	t.Helper()
	var cfg config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg.serveFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	return &cfg
}

func mocknetRecords(t *testing.T, n int) []*tsv.Record {
	t.Helper()
	r, closer, err := tsv.Open(fixtures.Path(t, "stacks/mocknet.tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	var out []*tsv.Record
	for len(out) < n {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		out = append(out, rec)
	}
	return out
}

func postEvent(t *testing.T, events string, rec *tsv.Record) {
	t.Helper()
	resp, err := http.Post(events+rec.Path, "application/json", bytes.NewReader(rec.Payload))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s (record %d) = %d %s", rec.Path, rec.ID, resp.StatusCode, body)
	}
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, body)
	}
	return body
}

// graphQL runs query and returns its data, failing on errors.
func graphQL(t *testing.T, api, query string) []byte {
	t.Helper()
	q, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post(api+"/graphql", "application/json", bytes.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
		t.Fatalf("GraphQL at %s: %v %v", api, err, out.Errors)
	}
	return out.Data
}

type replicationStatus struct {
	ChainTip struct {
		BlockHeight int `json:"block_height"`
	} `json:"chain_tip"`
	Replication *struct {
		LagSeconds *float64 `json:"lag_seconds"`
		LagBytes   *int64   `json:"lag_bytes"`
		PrimaryLSN string   `json:"primary_lsn"`
		ReplayLSN  string   `json:"replay_lsn"`
	} `json:"replication"`
}

func status(t *testing.T, api string) replicationStatus {
	t.Helper()
	var st replicationStatus
	if err := json.Unmarshal(get(t, api+"/extended"), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitTip waits until api serves a chain tip at height.
func waitTip(t *testing.T, ctx context.Context, api string, height int) {
	t.Helper()
	for status(t, api).ChainTip.BlockHeight != height {
		sleep(t, ctx)
	}
}

// waitHeld waits until the count of notices api holds for the replica satisfies ok.
func waitHeld(t *testing.T, ctx context.Context, api string, ok func(int) bool) {
	t.Helper()
	for {
		for _, line := range strings.Split(string(get(t, api+"/metrics")), "\n") {
			if v, found := strings.CutPrefix(line, "stxgraph_notices_held "); found {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				if ok(int(n)) {
					return
				}
			}
		}
		sleep(t, ctx)
	}
}

func sleep(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
		t.Fatal("gave up waiting")
	case <-time.After(20 * time.Millisecond):
	}
}

func execSQL(t *testing.T, ctx context.Context, s *db.Store, q string) {
	t.Helper()
	if _, err := s.DB.ExecContext(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// reannounceTip notifies the tip again on the primary every 50 ms until stop returns: NOTIFY
// carries no acknowledgement, so a subscriber is known to be live once it hears one.
func reannounceTip(ctx context.Context, primary *db.Store, hash []byte, height int) (stop func()) {
	payload, _ := json.Marshal(map[string]any{"kind": "block", "index_block_hash": db.Hex(hash), "block_height": height, "canonical": true})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
				primary.DB.ExecContext(ctx, "SELECT pg_notify(?, ?)", notices.EventsChannel, string(payload))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

type pushedBlock struct {
	Height int
	Hash   string
}

// blockSubscriber holds a graphql-transport-ws subscription to blocks; a goroutine reads it.
type blockSubscriber struct {
	blocks chan pushedBlock
	errs   chan error
}

func subscribeBlocks(t *testing.T, ctx context.Context, api string) *blockSubscriber {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(api, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	for _, m := range []map[string]any{
		{"type": "connection_init", "payload": map[string]any{}},
		{"id": "b", "type": "subscribe", "payload": map[string]any{"query": "subscription { blocks { block { height hash } } }"}},
	} {
		if err := wsjson.Write(ctx, conn, m); err != nil {
			t.Fatal(err)
		}
	}
	s := &blockSubscriber{blocks: make(chan pushedBlock, 1000), errs: make(chan error, 1)}
	go func() {
		for {
			var m struct {
				Type    string `json:"type"`
				Payload struct {
					Data struct {
						Blocks struct{ Block pushedBlock }
					} `json:"data"`
				} `json:"payload"`
			}
			if err := wsjson.Read(ctx, conn, &m); err != nil {
				s.errs <- err
				return
			}
			switch m.Type {
			case "next":
				s.blocks <- m.Payload.Data.Blocks.Block
			case "connection_ack", "ping", "pong", "ka":
			default:
				s.errs <- errors.New("unexpected message " + m.Type)
				return
			}
		}
	}()
	return s
}

func (s *blockSubscriber) next(t *testing.T) pushedBlock {
	t.Helper()
	select {
	case b := <-s.blocks:
		return b
	case err := <-s.errs:
		t.Fatalf("subscription: %v", err)
	}
	return pushedBlock{}
}

// pending returns the blocks pushed and not read yet.
func (s *blockSubscriber) pending() []pushedBlock {
	var out []pushedBlock
	for {
		select {
		case b := <-s.blocks:
			out = append(out, b)
		default:
			return out
		}
	}
}

// A --no-ingest process migrates and creates nothing: it refuses to start on a database whose
// schema is not current, and with --demo.
func TestServeNoIngestRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.URL(t)
	store := db.Open(url, db.PoolOptions{})
	defer store.Close()
	var last string
	if err := store.DB.QueryRowContext(ctx, "DELETE FROM bun_migrations WHERE id = (SELECT max(id) FROM bun_migrations) RETURNING name").Scan(&last); err != nil {
		t.Fatal(err)
	}
	err := serve(ctx, serveConfig(t, "--no-ingest", "--port", "0", "--database-url", url), nil)
	if err == nil || !strings.Contains(err.Error(), last) || !strings.Contains(err.Error(), "migrate up") {
		t.Errorf("--no-ingest without migration %s: %v", last, err)
	}
	if pending, err := store.SchemaPending(ctx); err != nil || len(pending) != 1 {
		t.Errorf("--no-ingest changed the schema: pending %v %v", pending, err)
	}

	missing, err := withDatabase(url, "stxgraph_never_created")
	if err != nil {
		t.Fatal(err)
	}
	if err := serve(ctx, serveConfig(t, "--no-ingest", "--port", "0", "--database-url", missing), nil); err == nil {
		t.Error("--no-ingest started on a missing database")
	}
	var created bool
	if err := store.DB.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'stxgraph_never_created')").Scan(&created); err != nil || created {
		t.Errorf("--no-ingest created its database: %v %v", created, err)
	}

	if err := serve(ctx, serveConfig(t, "--no-ingest", "--demo", "--port", "0", "--database-url", url), nil); err == nil || !strings.Contains(err.Error(), "--demo") {
		t.Errorf("--no-ingest --demo: %v", err)
	}
}

// The replica and API-only settings read their environment variables; the flags win.
func TestReplicaSettingsFromEnvironment(t *testing.T) {
	t.Setenv("DATABASE_READ_URL", "postgres://postgres@replica:5432/stxgraph?sslmode=disable")
	t.Setenv("STXGRAPH_NO_INGEST", "true")
	cfg := serveConfig(t)
	if cfg.databaseReadURL != "postgres://postgres@replica:5432/stxgraph?sslmode=disable" || !cfg.noIngest {
		t.Errorf("from the environment: read URL %q, no-ingest %v", cfg.databaseReadURL, cfg.noIngest)
	}
	cfg = serveConfig(t, "--database-read-url", "postgres://postgres@other:5432/stxgraph", "--no-ingest=false")
	if cfg.databaseReadURL != "postgres://postgres@other:5432/stxgraph" || cfg.noIngest {
		t.Errorf("flags over the environment: read URL %q, no-ingest %v", cfg.databaseReadURL, cfg.noIngest)
	}
}
