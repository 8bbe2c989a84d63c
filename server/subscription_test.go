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

// Ingest a block from a real fixture while a client is subscribed from the start of the feed:
// the replayed blocks arrive from the notice log, each once and in order, then the ingested
// block live, with nested fields read through loaders. A second client resuming from the
// position of block 20 gets exactly the blocks after it.
func TestSubscriptionReceivesIngestedBlock(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := replay(t, a.store, "stacks/mocknet.tsv.gz", 26)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const selection = `{ position block { height canonical parent { height } transactions { totalCount nodes { block { height } } } } reorg { rolledBack { height } } }`
	type item struct {
		Position string
		Block    *struct {
			Height       int
			Canonical    bool
			Parent       struct{ Height int }
			Transactions struct {
				TotalCount int
				Nodes      []struct{ Block struct{ Height int } }
			}
		}
		Reorg *struct{ RolledBack []struct{ Height int } }
	}
	c := dialWS(t, ctx, a)
	c.subscribe("blocks", `subscription { blocks(after: "0.0") `+selection+` }`)
	next := func(c *wsClient, id string) item {
		it := nextOf[item](c, id)
		if it.Block == nil || it.Reorg != nil || it.Position == "" {
			t.Fatalf("item %+v, want a block with its position", it)
		}
		return it
	}
	var at20 string
	for h := 1; h <= 26; h++ {
		it := next(c, "blocks")
		if it.Block.Height != h || !it.Block.Canonical {
			t.Fatalf("item %d is block %d (canonical %v), want the replayed block %d", h, it.Block.Height, it.Block.Canonical, h)
		}
		if h == 20 {
			at20 = it.Position
		}
	}
	if _, err := ingest.NewIngester(a.store).Apply(ctx, ingest.Message{Path: rest[0].Path, Payload: rest[0].Payload, ReceivedAt: rest[0].ReceivedAt}); err != nil {
		t.Fatal(err)
	}
	b := next(c, "blocks").Block
	if b.Height != 27 || !b.Canonical || b.Parent.Height != 26 || b.Transactions.TotalCount != 1 ||
		len(b.Transactions.Nodes) != 1 || b.Transactions.Nodes[0].Block.Height != 27 {
		t.Fatalf("ingested block arrived as %+v", b)
	}

	resumed := dialWS(t, ctx, a)
	resumed.subscribe("resumed", `subscription { blocks(after: "`+at20+`") `+selection+` }`)
	for h := 21; h <= 27; h++ {
		if got := next(resumed, "resumed").Block.Height; got != h {
			t.Fatalf("resumed after block 20: block %d, want %d", got, h)
		}
	}
	// Both go on live, with nothing repeated: the next block is the next item of each.
	if _, err := ingest.NewIngester(a.store).Apply(ctx, ingest.Message{Path: rest[1].Path, Payload: rest[1].Payload, ReceivedAt: rest[1].ReceivedAt}); err != nil {
		t.Fatal(err)
	}
	if got := next(c, "blocks").Block.Height; got != 28 {
		t.Errorf("the first client's next block is %d, want 28", got)
	}
	if got := next(resumed, "resumed").Block.Height; got != 28 {
		t.Errorf("the resumed client's next block is %d, want 28", got)
	}
}

// A position the feed never had, or one that is malformed, is refused with a clear error.
func TestSubscriptionRefusesBadPosition(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	replay(t, a.store, "stacks/mocknet.tsv.gz", 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	for id, after := range map[string]string{"ahead": "999999.0", "malformed": "block-3"} {
		c.subscribe(id, `subscription { blocks(after: "`+after+`") { position } }`)
		m := c.read()
		for m.Type == "complete" { // of the previous subscription
			m = c.read()
		}
		if m.ID != id || (m.Type != "error" && len(m.Payload.Errors) == 0) {
			t.Fatalf("%s: got %+v, want an error", id, m)
		}
	}
}

// The miner's coinbases reach a subscriber to the miner's address: those of the replayed
// blocks from the notice log, then the next ingested block's live.
func TestSubscriptionAddressTransactions(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := replay(t, a.store, "stacks/mocknet.tsv.gz", 27)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	c.subscribe("addr", `subscription { addressTransactions(principal: "ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH", after: "0.0") { position transaction { txId blockHeight sender { principal } } } }`)
	type tx struct {
		TxID        string
		BlockHeight int
	}
	next := func() tx {
		it := nextOf[struct{ Transaction *tx }](c, "addr")
		if it.Transaction == nil {
			t.Fatalf("item without a transaction")
		}
		return *it.Transaction
	}
	for last := 0; last < 27; {
		got := next()
		if got.BlockHeight < last {
			t.Fatalf("transaction of block %d after one of block %d", got.BlockHeight, last)
		}
		last = got.BlockHeight
	}
	if _, err := ingest.NewIngester(a.store).Apply(ctx, ingest.Message{Path: rest[0].Path, Payload: rest[0].Payload, ReceivedAt: rest[0].ReceivedAt}); err != nil {
		t.Fatal(err)
	}
	if got, want := next(), (tx{TxID: "0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d", BlockHeight: 28}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
