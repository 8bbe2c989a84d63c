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

// A connection encodes only the cursors its selection shows: every edge's, or the page's first
// and last for pageInfo alone. Either way pageInfo names the same rows, so walking by pageInfo and
// nodes alone gives the pages that walking by edges gives.
func TestPageInfoCursorsWithoutEdges(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 12, txsPerBlock: 3, sender: testSender}
	c.seed(t, a.store)
	for _, q := range []struct{ name, edges, nodes string }{
		{"blocks",
			`query($cursor: String) { blocksConnection(first: 5, after: $cursor) { pageInfo { hasNextPage startCursor endCursor } edges { cursor node { height } } } }`,
			`query($cursor: String) { blocksConnection(first: 5, after: $cursor) { pageInfo { hasNextPage startCursor endCursor } nodes { height } } }`},
		{"account transactions",
			`query($cursor: String) { account(principal: "` + testSender + `") { transactions(first: 4, after: $cursor) { pageInfo { hasNextPage startCursor endCursor } edges { cursor node { txId } } } } }`,
			`query($cursor: String) { account(principal: "` + testSender + `") { transactions(first: 4, after: $cursor) { ...page } } }
			fragment page on AccountTransactionConnection { pageInfo { hasNextPage startCursor endCursor } nodes { txId } }`},
	} {
		t.Run(q.name, func(t *testing.T) {
			var withEdges, withNodes []string
			for _, walk := range []struct {
				query string
				into  *[]string
			}{{q.edges, &withEdges}, {q.nodes, &withNodes}} {
				var cursor *string
				for page := 0; ; page++ {
					data, _ := a.mustQuery(t, walk.query, map[string]any{"cursor": cursor})
					var p struct {
						PageInfo struct {
							HasNextPage            bool
							StartCursor, EndCursor *string
						}
						Edges []struct{ Cursor string }
						Nodes []json.RawMessage
					}
					if err := json.Unmarshal(connectionOf(t, data), &p); err != nil {
						t.Fatal(err)
					}
					if p.PageInfo.StartCursor == nil || p.PageInfo.EndCursor == nil {
						t.Fatalf("page %d has no start or end cursor: %s", page, data)
					}
					if len(p.Edges) > 0 && (p.Edges[0].Cursor != *p.PageInfo.StartCursor || p.Edges[len(p.Edges)-1].Cursor != *p.PageInfo.EndCursor) {
						t.Errorf("page %d: pageInfo's cursors are not its first and last edges'", page)
					}
					*walk.into = append(*walk.into, *p.PageInfo.StartCursor, *p.PageInfo.EndCursor)
					if !p.PageInfo.HasNextPage {
						break
					}
					cursor = p.PageInfo.EndCursor
				}
			}
			if len(withEdges) < 4 || !slices.Equal(withEdges, withNodes) {
				t.Errorf("cursors walking by edges %v, by nodes %v", withEdges, withNodes)
			}
		})
	}
}

// connectionOf is the connection a walk's query answers: the top field's, or its account's
// transactions.
func connectionOf(t *testing.T, data json.RawMessage) json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if acct, ok := top["account"]; ok {
		var a map[string]json.RawMessage
		json.Unmarshal(acct, &a)
		return a["transactions"]
	}
	return top["blocksConnection"]
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

// A field's arguments are parsed once per response and shared by the objects it is resolved
// on; two fields of one object (aliases) and a variable keep their own.
func TestFieldArgumentsPerField(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 4, txsPerBlock: 3, sender: testSender}
	c.seed(t, a.store)
	data, _ := a.mustQuery(t, `query($n: Int) { blocksConnection(first: 3) { nodes { height
		one: transactions(first: 1) { nodes { txId } } some: transactions(first: $n) { nodes { txId } } } } }`, map[string]any{"n": 2})
	var got struct {
		BlocksConnection struct {
			Nodes []struct {
				Height    int
				One, Some struct{ Nodes []struct{ TxID string } }
			}
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.BlocksConnection.Nodes) != 3 {
		t.Fatalf("%d blocks, want 3: %s", len(got.BlocksConnection.Nodes), data)
	}
	for _, b := range got.BlocksConnection.Nodes {
		if len(b.One.Nodes) != 1 || len(b.Some.Nodes) != 2 || b.One.Nodes[0] != b.Some.Nodes[0] {
			t.Errorf("block %d: first 1 gave %v, first $n=2 gave %v", b.Height, b.One.Nodes, b.Some.Nodes)
		}
	}
}
