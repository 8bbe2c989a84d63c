package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

type pageJSON struct {
	PageInfo struct {
		HasNextPage, HasPreviousPage bool
		StartCursor, EndCursor       *string
	}
	Edges []struct {
		Cursor string
		Node   json.RawMessage
	}
}

// walk pages through a connection (forward with first/after, or backward with last/before),
// calling between after each page, and returns every node in list order.
func walk(t *testing.T, a *api, query, field string, backward bool, between func()) []json.RawMessage {
	t.Helper()
	var nodes []json.RawMessage
	var cursor *string
	for range 100 {
		data, _ := a.mustQuery(t, query, map[string]any{"cursor": cursor})
		var got map[string]json.RawMessage
		json.Unmarshal(data, &got)
		raw := got[field]
		if field == "account" {
			var acct map[string]json.RawMessage
			json.Unmarshal(raw, &acct)
			raw = acct["transactions"]
		}
		var p pageJSON
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		page := make([]json.RawMessage, len(p.Edges))
		for i, e := range p.Edges {
			page[i] = e.Node
		}
		more, next := p.PageInfo.HasNextPage, p.PageInfo.EndCursor
		if backward {
			nodes = append(page, nodes...)
			more, next = p.PageInfo.HasPreviousPage, p.PageInfo.StartCursor
		} else {
			nodes = append(nodes, page...)
		}
		if !more {
			return nodes
		}
		cursor = next
		between()
	}
	t.Fatal("pagination did not end")
	return nil
}

func heights(t *testing.T, nodes []json.RawMessage) []int {
	t.Helper()
	out := make([]int, len(nodes))
	for i, n := range nodes {
		var b struct{ Height, BlockHeight int }
		json.Unmarshal(n, &b)
		out[i] = b.Height + b.BlockHeight
	}
	return out
}

func descending(from, to int) []int {
	var out []int
	for h := from; h >= to; h-- {
		out = append(out, h)
	}
	return out
}

// Blocks arrive between every page; each block present when paging started is returned exactly
// once, in order, in both directions.
func TestCursorPaginationIsStableWhileBlocksArrive(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 25, txsPerBlock: 2, sender: testSender}
	c.seed(t, a.store)
	next := 26
	arrive := func() {
		c.insertBlock(context.Background(), t, a.store, next, true)
		next++
	}

	fwd := walk(t, a, `query($cursor: String) { blocksConnection(first: 7, after: $cursor) {
		pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { height } } } }`,
		"blocksConnection", false, arrive)
	if got := heights(t, fwd); !slices.Equal(got, descending(25, 1)) {
		t.Errorf("forward pages: heights %v", got)
	}

	// Backward from the oldest block: the newer blocks that arrive keep being found, so stop
	// comparing at the height the walk started with.
	top := next - 1
	bwd := walk(t, a, `query($cursor: String) { blocksConnection(last: 6, before: $cursor) {
		pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { height } } } }`,
		"blocksConnection", true, arrive)
	got := heights(t, bwd)
	if !slices.Equal(got[len(got)-top:], descending(top, 1)) || len(got) != next-1 {
		t.Errorf("backward pages: heights %v (tip %d)", got, next-1)
	}

	// An account's history pages by (height, microblock, tx index).
	stored := next - 1
	txs := walk(t, a, `query($cursor: String) { account(principal: "`+testSender+`") { transactions(first: 5, after: $cursor) {
		pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { txId blockHeight } } } } }`,
		"account", false, arrive)
	seen := map[string]bool{}
	for _, n := range txs {
		var tx struct{ TxID string }
		json.Unmarshal(n, &tx)
		if seen[tx.TxID] {
			t.Errorf("tx %s returned twice", tx.TxID)
		}
		seen[tx.TxID] = true
	}
	if want := 2 * stored; len(seen) != want { // the history as it stood when the walk began
		t.Errorf("account history: %d distinct txs, want %d", len(seen), want)
	}
}

func TestConnectionArgumentErrors(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 3, txsPerBlock: 1, sender: testSender}.seed(t, a.store)
	data, _ := a.mustQuery(t, `{ blocksConnection(first: 1) { pageInfo { endCursor } } }`, nil)
	var got struct {
		BlocksConnection struct{ PageInfo struct{ EndCursor string } }
	}
	json.Unmarshal(data, &got)
	blockCursor := got.BlocksConnection.PageInfo.EndCursor

	tests := []struct{ name, query, want string }{
		{"both directions", `{ blocksConnection(first: 1, last: 1) { nodes { height } } }`, "give first/after or last/before, not both"},
		{"garbage cursor", `{ blocksConnection(after: "nope") { nodes { height } } }`, `cursor "nope" is not a cursor of this list`},
		{"cursor of another list", fmt.Sprintf(`{ account(principal: "%s") { transactions(after: "%s") { nodes { txId } } } }`, testSender, blockCursor),
			"is not a cursor of this list"},
		{"bad principal", `{ account(principal: "SPnope") { transactions { nodes { txId } } } }`, `invalid STX address "SPnope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := a.query(t, map[string]any{"query": tc.query})
			if len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, tc.want) || out.Errors[0].Extensions["code"] != "invalid" {
				t.Fatalf("errors %+v; want %q (invalid)", out.Errors, tc.want)
			}
		})
	}
}
