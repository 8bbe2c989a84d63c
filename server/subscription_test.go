package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/server"
)

// wsClient speaks graphql-transport-ws to /graphql.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	ctx  context.Context
}

func dialWS(t *testing.T, ctx context.Context, a *api) *wsClient {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(a.url, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	c := &wsClient{t: t, conn: conn, ctx: ctx}
	c.send(map[string]any{"type": "connection_init", "payload": map[string]any{}})
	if m := c.read(); m.Type != "connection_ack" {
		t.Fatalf("got %+v, want connection_ack", m)
	}
	return c
}

type wsMessage struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Payload struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	} `json:"payload"`
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	if err := wsjson.Write(c.ctx, c.conn, v); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next message other than a keep-alive.
func (c *wsClient) read() wsMessage {
	c.t.Helper()
	for {
		var m wsMessage
		if err := wsjson.Read(c.ctx, c.conn, &m); err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if m.Type != "ping" && m.Type != "pong" && m.Type != "ka" {
			return m
		}
	}
}

func (c *wsClient) subscribe(id, query string) {
	c.send(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query}})
}

// nextOf reads the next message, which must be data of subscription id, and decodes its one
// root field into a T.
func nextOf[T any](c *wsClient, id string) T {
	c.t.Helper()
	m := c.read()
	if m.Type != "next" || m.ID != id || len(m.Payload.Errors) > 0 {
		c.t.Fatalf("got %+v", m)
	}
	var data map[string]T
	if err := json.Unmarshal(m.Payload.Data, &data); err != nil || len(data) != 1 {
		c.t.Fatalf("data %s: %v", m.Payload.Data, err)
	}
	var v T
	for _, v = range data {
	}
	return v
}

// replay applies the first n records of a fixture through the real ingestion path and returns the
// rest.
func replay(t *testing.T, store *db.Store, fixture string, n int) []*tsv.Record {
	t.Helper()
	r, closer, err := tsv.Open(fixtures.Path(t, fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	in := ingest.NewIngester(store)
	var rest []*tsv.Record
	for i := 0; ; i++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rest
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= n {
			rest = append(rest, rec)
			continue
		}
		if _, err := in.Apply(context.Background(), ingest.Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatalf("record %d: %v", rec.ID, err)
		}
	}
}

// reannounce notifies tip again every 50 ms until the returned channel is closed. NOTIFY carries
// no subscription acknowledgement, so a test waits until its client hears the tip: from then on
// the subscription is live, and every notice sent before it (PostgreSQL delivers a listener's
// notices in commit order) has been heard.
func reannounce(ctx context.Context, a *api, tip *db.ChainTip) chan struct{} {
	payload, _ := json.Marshal(map[string]any{"kind": "block", "index_block_hash": db.Hex(tip.IndexBlockHash),
		"block_height": tip.BlockHeight, "canonical": true})
	return notifyUntilClosed(ctx, a, db.EventsChannel, string(payload))
}

// notifyUntilClosed sends payload on the channel every 50 ms until the returned channel is closed.
func notifyUntilClosed(ctx context.Context, a *api, channel, payload string) chan struct{} {
	live := make(chan struct{})
	go func() {
		for {
			select {
			case <-live:
				return
			case <-time.After(50 * time.Millisecond):
				a.store.DB.ExecContext(ctx, "SELECT pg_notify(?, ?)", channel, payload)
			}
		}
	}()
	return live
}

// Ingest a block from a real fixture while a client is subscribed: the block, with nested
// fields read through loaders, arrives over the WebSocket.
func TestSubscriptionReceivesIngestedBlock(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := replay(t, a.store, "stacks/mocknet.tsv.gz", 27)
	var tip db.ChainTip
	if err := a.store.DB.NewSelect().Model(&tip).Scan(context.Background()); err != nil || tip.BlockHeight != 27 {
		t.Fatalf("tip after 27 blocks: %+v %v", tip, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	c.subscribe("blocks", `subscription { blocks { height canonical parent { height } transactions { totalCount nodes { block { height } } } } }`)

	live := reannounce(ctx, a, &tip)
	type block struct {
		Height       int
		Canonical    bool
		Parent       struct{ Height int }
		Transactions struct {
			TotalCount int
			Nodes      []struct{ Block struct{ Height int } }
		}
	}
	next := func() block { return nextOf[block](c, "blocks") }
	// The replay's own notices may still be on their way (NOTIFY reaches the listener
	// asynchronously) and arrive after the subscription started: skip those of the replayed
	// blocks until the tip is heard.
	for b := next(); b.Height != 27; b = next() {
		if b.Height > 27 {
			t.Fatalf("before any ingestion: block %d, want the replayed blocks up to the tip 27", b.Height)
		}
	}
	close(live)

	if _, err := ingest.NewIngester(a.store).Apply(ctx, ingest.Message{Path: rest[0].Path, Payload: rest[0].Payload, ReceivedAt: rest[0].ReceivedAt}); err != nil {
		t.Fatal(err)
	}
	for {
		b := next()
		if b.Height == 27 { // announcements sent before the loop stopped
			continue
		}
		if b.Height != 28 || !b.Canonical || b.Parent.Height != 27 || b.Transactions.TotalCount != 1 ||
			len(b.Transactions.Nodes) != 1 || b.Transactions.Nodes[0].Block.Height != 28 {
			t.Fatalf("ingested block arrived as %+v", b)
		}
		return
	}
}

// The miner's coinbase in the next ingested block reaches a subscriber to the miner's address.
func TestSubscriptionAddressTransactions(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := replay(t, a.store, "stacks/mocknet.tsv.gz", 27)
	var tip db.ChainTip
	if err := a.store.DB.NewSelect().Model(&tip).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	c.subscribe("addr", `subscription { addressTransactions(principal: "ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH") { txId blockHeight sender { principal } } }`)
	live := reannounce(ctx, a, &tip)
	type tx struct {
		TxID        string
		BlockHeight int
	}
	next := func() tx { return nextOf[tx](c, "addr") }
	// As above: skip late notices of the replayed blocks until the tip's coinbase is heard.
	for got := next(); got.BlockHeight != 27; got = next() {
		if got.BlockHeight > 27 {
			t.Fatalf("before any ingestion: %+v, want the coinbases of the replayed blocks up to the tip 27", got)
		}
	}
	close(live)
	if _, err := ingest.NewIngester(a.store).Apply(ctx, ingest.Message{Path: rest[0].Path, Payload: rest[0].Payload, ReceivedAt: rest[0].ReceivedAt}); err != nil {
		t.Fatal(err)
	}
	for {
		got := next()
		if got.BlockHeight == 27 {
			continue
		}
		if want := (tx{TxID: "0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d", BlockHeight: 28}); got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		return
	}
}
