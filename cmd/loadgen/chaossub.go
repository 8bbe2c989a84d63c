package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// feedPosition is a subscription item's place in the notice log ("<seq>.<index>").
type feedPosition struct {
	seq   int64
	index int
}

func parseFeedPosition(s string) (feedPosition, error) {
	seq, index, ok := strings.Cut(s, ".")
	n, err1 := strconv.ParseInt(seq, 10, 64)
	i, err2 := strconv.Atoi(index)
	if !ok || err1 != nil || err2 != nil {
		return feedPosition{}, fmt.Errorf("feed position %q", s)
	}
	return feedPosition{n, i}, nil
}

func (p feedPosition) String() string {
	return strconv.FormatInt(p.seq, 10) + "." + strconv.Itoa(p.index)
}

func (p feedPosition) less(q feedPosition) bool {
	return p.seq < q.seq || (p.seq == q.seq && p.index < q.index)
}

// The subscriptions the subscribers follow; $after is the last position they hold.
const (
	blocksSubscription  = `subscription($after: String) { blocks(after: $after) { position block { height } reorg { restored { height } } } }`
	mempoolSubscription = `subscription($after: String) { mempoolTransactions(after: $after) { position transaction { txId } droppedTxId } }`
	addressSubscription = `subscription($after: String, $principal: String!) { addressTransactions(principal: $principal, after: $after) { position transaction { txId } } }`
)

// subscriber follows one feed over graphql-transport-ws, resubscribing after its last position
// whenever the connection ends, and keeps every position it received.
type subscriber struct {
	name  string
	feed  string // blocks, mempool or address
	query string
	vars  map[string]any
	api   func() string // the API's base URL
	from  string        // the position to follow the feed after, before the first item

	mu        sync.Mutex
	positions []feedPosition
	resumes   int
	errs      []string
	conn      *websocket.Conn
}

// feedStart is the position before a feed's first item: a subscriber following after it
// receives the whole feed.
const feedStart = "0.0"

func newSubscriber(name, feed, principal, from string, api func() string) *subscriber {
	s := &subscriber{name: name, feed: feed, api: api, from: from, vars: map[string]any{}}
	switch feed {
	case "blocks":
		s.query = blocksSubscription
	case "mempool":
		s.query = mempoolSubscription
	default:
		s.query = addressSubscription
		s.vars["principal"] = principal
	}
	return s
}

// run follows the feed until ctx ends.
func (s *subscriber) run(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.follow(ctx)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		s.resumes++
		if err != nil && len(s.errs) < 20 {
			s.errs = append(s.errs, time.Now().UTC().Format("15:04:05.000")+" "+err.Error())
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// follow connects, subscribes after the last position held and reads items until the
// connection ends.
func (s *subscriber) follow(ctx context.Context) error {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(s.api(), "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 20)
	s.mu.Lock()
	s.conn = conn
	vars := map[string]any{}
	for k, v := range s.vars {
		vars[k] = v
	}
	if n := len(s.positions); n > 0 {
		vars["after"] = s.positions[n-1].String()
	} else if s.from != "" {
		vars["after"] = s.from
	}
	s.mu.Unlock()
	if err := wsjson.Write(dctx, conn, map[string]any{"type": "connection_init", "payload": map[string]any{}}); err != nil {
		return err
	}
	if err := wsjson.Write(dctx, conn, map[string]any{"id": "1", "type": "subscribe",
		"payload": map[string]any{"query": s.query, "variables": vars}}); err != nil {
		return err
	}
	for {
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := wsjson.Read(ctx, conn, &m); err != nil {
			return err
		}
		switch m.Type {
		case "next":
			if err := s.item(m.Payload); err != nil {
				return err
			}
		case "error", "complete":
			return fmt.Errorf("%s: %s", m.Type, m.Payload)
		}
	}
}

// item keeps the position of one item.
func (s *subscriber) item(payload json.RawMessage) error {
	var p struct {
		Data   map[string]struct{ Position string } `json:"data"`
		Errors json.RawMessage                      `json:"errors"`
	}
	if err := json.Unmarshal(payload, &p); err != nil || len(p.Errors) > 0 || len(p.Data) != 1 {
		return fmt.Errorf("item %s: %v", payload, err)
	}
	for _, it := range p.Data {
		pos, err := parseFeedPosition(it.Position)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.positions = append(s.positions, pos)
		s.mu.Unlock()
	}
	return nil
}

// drop cuts the connection, as a client's network does.
func (s *subscriber) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.CloseNow()
	}
}

func (s *subscriber) received() []feedPosition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]feedPosition(nil), s.positions...)
}

// checkOrder checks that a subscriber received each item once and in order.
func checkOrder(got []feedPosition) error {
	for i := 1; i < len(got); i++ {
		if !got[i-1].less(got[i]) {
			return fmt.Errorf("item %s after %s: a duplicate or out of order", got[i], got[i-1])
		}
	}
	return nil
}

// checkFeed checks that a subscriber that followed a feed from its start received every item
// of want (the feed's items in the notice log, in order) once, in order, and nothing else.
func checkFeed(got, want []feedPosition) error {
	if err := checkOrder(got); err != nil {
		return err
	}
	for i, p := range got {
		switch {
		case i >= len(want):
			return fmt.Errorf("item %s is not in the feed", p)
		case want[i] != p:
			return fmt.Errorf("missed item %s (got %s in its place)", want[i], p)
		}
	}
	if len(got) < len(want) {
		last := "nothing"
		if len(got) > 0 {
			last = got[len(got)-1].String()
		}
		return fmt.Errorf("received %s, %d items before the feed's last %s", last, len(want)-len(got), want[len(want)-1])
	}
	return nil
}
