package resolvers

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// Relay cursor connections over keyset pages. A cursor is the key of a row (its position in the
// list's order), not an offset, so a page does not shift when blocks arrive above it.

// DefaultPageSize is the page size of a connection asked for without first or last.
const DefaultPageSize = 20

// list describes one keyset-ordered list: a tag that keeps cursors from being used on another
// list, the number of integer key columns and whether a bytea column (a tx id) ends the key.
type list struct {
	tag  string
	ints int
	hash bool
}

var (
	blockList        = list{tag: "block", ints: 1}
	blockTxList      = list{tag: "blocktx", ints: 2}
	principalTxList  = list{tag: "principaltx", ints: 3}
	contractLogList  = list{tag: "contractlog", ints: 4}
	mempoolList      = list{tag: "mempool", ints: 1, hash: true}
	errMixedPaginate = "give first/after or last/before, not both"
)

// relayArgs are a connection field's pagination arguments.
type relayArgs struct {
	first, last   *int32
	after, before *string
}

// keyset validates Relay arguments into a keyset page of size n, asking the store for one extra
// row so that the page knows whether more rows exist.
func (r *Resolver) keyset(l list, a relayArgs) (ks db.Keyset, n int, err error) {
	forward := a.first != nil || a.after != nil
	backward := a.last != nil || a.before != nil
	if forward && backward {
		return ks, 0, invalid("%s", errMixedPaginate)
	}
	size, cursor := a.first, a.after
	if backward {
		size, cursor, ks.Reverse = a.last, a.before, true
	}
	n = DefaultPageSize
	if size != nil {
		n = int(*size)
	}
	if max := r.maxPageSize(); n < 0 || n > max {
		return ks, 0, invalid("page size (first/last) must be between 0 and %d", max)
	}
	if cursor != nil {
		if ks.After, err = l.decode(*cursor); err != nil {
			return ks, 0, err
		}
	}
	ks.Limit = n + 1
	return ks, n, nil
}

func (r *Resolver) maxPageSize() int {
	if r.MaxPageSize > 0 {
		return r.MaxPageSize
	}
	return DefaultMaxPageSize
}

// DefaultMaxPageSize bounds first/last when the server sets no other maximum.
const DefaultMaxPageSize = 100

func (l list) encode(c db.Cursor) string {
	parts := []string{l.tag}
	for _, v := range c.Key[:l.ints] {
		parts = append(parts, strconv.FormatInt(v, 10))
	}
	if l.hash {
		parts = append(parts, hex.EncodeToString([]byte(c.Hash)))
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, ":")))
}

func (l list) decode(s string) (db.Cursor, error) {
	c := db.Cursor{Set: true}
	bad := invalid("cursor %q is not a cursor of this list", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, bad
	}
	parts := strings.Split(string(raw), ":")
	want := 1 + l.ints
	if l.hash {
		want++
	}
	if len(parts) != want || parts[0] != l.tag {
		return c, bad
	}
	for i := range l.ints {
		if c.Key[i], err = strconv.ParseInt(parts[1+i], 10, 64); err != nil {
			return c, bad
		}
	}
	if l.hash {
		h, err := hex.DecodeString(parts[want-1])
		if err != nil {
			return c, bad
		}
		c.Hash = string(h)
	}
	return c, nil
}

// pageOf is one connection page in list order.
type pageOf[T any] struct {
	nodes   []T
	cursors []string // of the nodes the selection shows a cursor of (see keyed)
	edges   bool     // the selection shows edges
	info    *graph.PageInfo
}

// paginate turns the rows a keyset read returned (n+1 at most, in reading order) into a page in
// list order. hasPreviousPage (forward) and hasNextPage (backward) report whether a cursor was
// given: rows exist beyond it by construction, and checking costs another query.
func paginate[T any](ctx context.Context, l list, rows []T, ks db.Keyset, n int, key func(T) db.Cursor) pageOf[T] {
	more := len(rows) > n
	if more {
		rows = rows[:n]
	}
	if ks.Reverse {
		rows = slices.Clone(rows)
		slices.Reverse(rows)
	}
	p := pageOf[T]{nodes: rows, info: &graph.PageInfo{}}
	p.keyed(ctx, func(row T) string { return l.encode(key(row)) })
	if ks.Reverse {
		p.info.HasPreviousPage, p.info.HasNextPage = more, ks.After.Set
	} else {
		p.info.HasNextPage, p.info.HasPreviousPage = more, ks.After.Set
	}
	return p
}

// keyed encodes the cursors the connection being resolved shows: every node's when it selects
// edges, only the first and last node's when it selects pageInfo alone, none otherwise. A page
// asked for its nodes' fields (the usual explorer page) then encodes no cursor at all. Outside a
// field (a resolver called directly) every cursor is encoded.
func (p *pageOf[T]) keyed(ctx context.Context, cursor func(T) string) {
	p.edges = true
	info := true
	if graphql.GetFieldContext(ctx) != nil {
		fields := graphql.CollectAllFields(ctx)
		p.edges, info = slices.Contains(fields, "edges"), slices.Contains(fields, "pageInfo")
	}
	if len(p.nodes) == 0 || (!p.edges && !info) {
		return
	}
	p.cursors = make([]string, len(p.nodes))
	last := len(p.nodes) - 1
	for i, node := range p.nodes {
		if p.edges || i == 0 || i == last {
			p.cursors[i] = cursor(node)
		}
	}
	p.info.StartCursor, p.info.EndCursor = &p.cursors[0], &p.cursors[last]
}

// edges builds a connection's edges from a page, one per node with its cursor, when the
// selection shows them.
func edges[T, E any](p pageOf[T], edge func(cursor string, node T) E) []E {
	if !p.edges {
		return nil
	}
	out := make([]E, len(p.nodes))
	for i, node := range p.nodes {
		out[i] = edge(p.cursors[i], node)
	}
	return out
}

func blockCursor(b *db.Block) db.Cursor {
	return db.Cursor{Set: true, Key: [4]int64{int64(b.BlockHeight)}}
}

func blockTxCursor(t *db.Tx) db.Cursor {
	return db.Cursor{Set: true, Key: [4]int64{int64(t.MicroblockSequence), int64(t.TxIndex)}}
}

func principalTxCursor(t *db.Tx) db.Cursor {
	return db.Cursor{Set: true, Key: [4]int64{int64(t.BlockHeight), int64(t.MicroblockSequence), int64(t.TxIndex)}}
}

func contractLogCursor(e *db.ContractLog) db.Cursor { return eventCursor(e) }

func mempoolCursor(t *db.MempoolTx) db.Cursor {
	return db.Cursor{Set: true, Key: [4]int64{t.ReceiptTime}, Hash: string(t.TxID)}
}

func (r *Resolver) AccountTransactionConnection() graph.AccountTransactionConnectionResolver {
	return accountTransactionConnectionResolver{r}
}

// Transactions is the account's history (sender, sponsor, recipient, contract or any asset event),
// newest first, from principal_txs.
func (r accountResolver) Transactions(ctx context.Context, a *db.Account, first *int32, after *string, last *int32, before *string) (*graph.AccountTransactionConnection, error) {
	ks, n, err := r.keyset(principalTxList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	if selects(ctx, "totalCount") {
		// The count comes with the account's balance row: asked for now, it shares this level's
		// batch (with the page, and the balance when the operation asks for it) rather than
		// costing a statement of its own on the next level.
		latestOf(ctx, a.Principal)
	}
	page := loaders.Page{Parent: a.Principal, Keyset: ks, Columns: txPageColumns(ctx), Events: txEventsAsked(ctx, pageTxs)}
	rows, err := loaders.For(ctx).PrincipalTxs.Load(ctx, page)()
	if err != nil {
		return nil, err
	}
	c := txConnection(paginate(ctx, principalTxList, rows, ks, n, principalTxCursor))
	return &graph.AccountTransactionConnection{Edges: c.Edges, Nodes: c.Nodes, PageInfo: c.PageInfo, Principal: a.Principal}, nil
}

// selects reports whether the field being resolved selects a field of one of these names.
func selects(ctx context.Context, names ...string) bool {
	if graphql.GetFieldContext(ctx) == nil {
		return false
	}
	return slices.ContainsFunc(graphql.CollectAllFields(ctx), func(f string) bool { return slices.Contains(names, f) })
}

type accountTransactionConnectionResolver struct{ *Resolver }

// TotalCount is the account's transaction count, read with its balance row.
func (r accountTransactionConnectionResolver) TotalCount(ctx context.Context, c *graph.AccountTransactionConnection) (int32, error) {
	b, err := latestOf(ctx, c.Principal)()
	if err != nil {
		return 0, err
	}
	return int32(b.TxCount), nil
}

func (r queryResolver) Account(_ context.Context, principal string) (*db.Account, error) {
	if err := validPrincipal(principal); err != nil {
		return nil, err
	}
	return &db.Account{Principal: principal}, nil
}
