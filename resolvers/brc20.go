package resolvers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

type brc20TokenResolver struct{ *Resolver }

// maxTickerChars bounds a ticker lookup: a deploy's tick has at most 6 UTF-8 bytes (6-byte
// tickers exist in some indexers), so no spelling of a ticker, in any case, has more characters.
const maxTickerChars = 6

// checkText rejects text PostgreSQL cannot hold (invalid UTF-8, NUL) with a message naming it.
func checkText(what, s string) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return invalid("%s %q is not valid UTF-8 text", what, s)
	}
	return nil
}

// checkTicker rejects what cannot be a BRC-20 ticker in any case.
func checkTicker(s string) error {
	if err := checkText("ticker", s); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(s); n == 0 || n > maxTickerChars {
		return invalid("ticker %q is not a BRC-20 ticker (1 to %d characters)", s, maxTickerChars)
	}
	return nil
}

func checkTexts(what string, ss []string) error {
	for _, s := range ss {
		if err := checkText(what, s); err != nil {
			return err
		}
	}
	return nil
}

func (r queryResolver) Brc20Token(ctx context.Context, ticker string) (*db.Brc20Token, error) {
	if err := checkTicker(ticker); err != nil {
		return nil, err
	}
	return loaders.For(ctx).Brc20Token.Load(ctx, ticker)()
}

// A BRC-20 cursor is the key of a row in its list (db.Brc20Cursor) with the list's tag, as
// base64url JSON: balances exceed int64 and tickers and addresses may hold any character.
type brc20List string

const (
	brc20TokensByDeploy  brc20List = "brc20tokens"
	brc20TokensByTxCount brc20List = "brc20tokens-txcount"
	brc20HolderList      brc20List = "brc20holder"
	brc20BalanceList     brc20List = "brc20balance"
	brc20ActivityList    brc20List = "brc20activity"
	brc20TransferList    brc20List = "brc20transferable"
)

type brc20CursorJSON struct {
	List brc20List `json:"l"`
	Num  string    `json:"n,omitempty"`
	Key  [2]int64  `json:"i"`
	Text string    `json:"t,omitempty"`
}

func (l brc20List) encode(c db.Brc20Cursor) string {
	b, _ := json.Marshal(brc20CursorJSON{List: l, Num: c.Num, Key: c.Key, Text: c.Text})
	return base64.RawURLEncoding.EncodeToString(b)
}

// numeric reports whether the list's key has a balance.
func (l brc20List) numeric() bool { return l == brc20HolderList || l == brc20BalanceList }

// decode reads a cursor of list l.
func (l brc20List) decode(s string) (db.Brc20Cursor, error) {
	numeric := l.numeric()
	bad := invalid("cursor %q is not a cursor of this list", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return db.Brc20Cursor{}, bad
	}
	var j brc20CursorJSON
	if err := json.Unmarshal(raw, &j); err != nil || j.List != l || numeric != (j.Num != "") ||
		(numeric && !isDigits(j.Num)) || checkText("cursor", j.Text) != nil {
		return db.Brc20Cursor{}, bad
	}
	return db.Brc20Cursor{Set: true, Num: j.Num, Key: j.Key, Text: j.Text}, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits (a numeric PostgreSQL accepts).
func isDigits(s string) bool {
	if s == "" || len(s) > 80 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// brc20Connection reads one page of list l: it validates the paging arguments, has fetch read
// the page's rows plus one (to know whether more follow) and keys the rows with their cursors.
func brc20Connection[T any](ctx context.Context, r *Resolver, l brc20List, first *int32, after *string, offset *int32,
	fetch func(db.Brc20Page) ([]T, error), key func(T) db.Brc20Cursor) (pageOf[T], error) {
	n := DefaultPageSize
	if first != nil {
		n = int(*first)
	}
	if max := r.maxPageSize(); n < 0 || n > max {
		return pageOf[T]{}, invalid("page size (first) must be between 0 and %d", max)
	}
	var p db.Brc20Page
	if offset != nil {
		if *offset < 0 {
			return pageOf[T]{}, invalid("offset must be 0 or more")
		}
		p.Offset = int(*offset)
	}
	if after != nil {
		var err error
		if p.After, err = l.decode(*after); err != nil {
			return pageOf[T]{}, err
		}
	}
	p.Limit = n + 1
	rows, err := fetch(p)
	if err != nil {
		return pageOf[T]{}, err
	}
	return brc20Paginate(ctx, l, rows, p, n, key), nil
}

// brc20Paginate cuts the rows read for page p (n+1 at most) to n and reports where they sit.
func brc20Paginate[T any](ctx context.Context, l brc20List, rows []T, p db.Brc20Page, n int, key func(T) db.Brc20Cursor) pageOf[T] {
	more := len(rows) > n
	rows = rows[:min(n, len(rows))]
	out := pageOf[T]{nodes: rows, info: &graph.PageInfo{HasNextPage: more, HasPreviousPage: p.After.Set || p.Offset > 0}}
	out.keyed(ctx, func(row T) string { return l.encode(key(row)) })
	return out
}

func (r queryResolver) Brc20Tokens(ctx context.Context, tickers []string, orderBy *graph.Brc20TokenOrder, first *int32, after *string, offset *int32) (*graph.Brc20TokenConnection, error) {
	if err := checkTexts("ticker", tickers); err != nil {
		return nil, err
	}
	sort, list, key := db.Brc20ByDeploy, brc20TokensByDeploy, func(t *db.Brc20Token) db.Brc20Cursor {
		return db.Brc20Cursor{Set: true, Key: [2]int64{int64(t.BlockHeight), int64(t.TxIndex)}, Text: t.Ticker}
	}
	if orderBy != nil && *orderBy == graph.Brc20TokenOrderTxCount {
		sort, list, key = db.Brc20ByTxCount, brc20TokensByTxCount, func(t *db.Brc20Token) db.Brc20Cursor {
			return db.Brc20Cursor{Set: true, Key: [2]int64{t.TxCount}, Text: t.Ticker}
		}
	}
	f := db.Brc20TokenFilter{Prefixes: tickers}
	pg, err := brc20Connection(ctx, r.Resolver, list, first, after, offset, func(p db.Brc20Page) ([]*db.Brc20Token, error) {
		return r.Store.Brc20Tokens(ctx, f, sort, p)
	}, key)
	if err != nil {
		return nil, err
	}
	return &graph.Brc20TokenConnection{Nodes: pg.nodes, PageInfo: pg.info, Filter: f,
		Edges: edges(pg, func(c string, t *db.Brc20Token) *graph.Brc20TokenEdge {
			return &graph.Brc20TokenEdge{Cursor: c, Node: t}
		})}, nil
}

func (r *Resolver) Brc20TokenConnection() graph.Brc20TokenConnectionResolver {
	return brc20TokenConnectionResolver{r}
}

type brc20TokenConnectionResolver struct{ *Resolver }

// TotalCount counts the listed tokens only when asked.
func (r brc20TokenConnectionResolver) TotalCount(ctx context.Context, c *graph.Brc20TokenConnection) (int32, error) {
	n, err := r.Store.Brc20TokenCount(ctx, c.Filter)
	return int32(n), err
}

// Holders pages the token's holders, largest balance first; the pages of every token a query
// lists are read together.
func (r brc20TokenResolver) Holders(ctx context.Context, t *db.Brc20Token, first *int32, after *string, offset *int32) (*graph.Brc20HolderConnection, error) {
	pg, err := brc20Connection(ctx, r.Resolver, brc20HolderList, first, after, offset, func(p db.Brc20Page) ([]*db.Brc20Balance, error) {
		return loaders.For(ctx).Brc20Holders.Load(ctx, loaders.Brc20HoldersKey{Ticker: t.Ticker, Page: p})()
	}, func(b *db.Brc20Balance) db.Brc20Cursor {
		return db.Brc20Cursor{Set: true, Num: b.TotalBalance, Text: b.Address}
	})
	if err != nil {
		return nil, err
	}
	return &graph.Brc20HolderConnection{Nodes: pg.nodes, PageInfo: pg.info, TotalCount: int32(t.HolderCount),
		Edges: edges(pg, func(c string, b *db.Brc20Balance) *graph.Brc20HolderEdge {
			return &graph.Brc20HolderEdge{Cursor: c, Node: b}
		})}, nil
}
