package resolvers

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
)

// A holder cursor carries the holder's total balance (a numeric beyond int64, as a decimal
// string) and address, the key of the holder order; the generic integer cursors cannot.
const holderCursorTag = "brc20holder"

func holderCursor(b *db.Brc20Balance) string {
	return base64.RawURLEncoding.EncodeToString([]byte(holderCursorTag + ":" + b.TotalBalance + ":" + b.Address))
}

func decodeHolderCursor(s string) (*db.Brc20HolderKey, error) {
	bad := invalid("cursor %q is not a cursor of this list", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	parts := strings.SplitN(string(raw), ":", 3)
	if len(parts) != 3 || parts[0] != holderCursorTag || !isDigits(parts[1]) || parts[2] == "" {
		return nil, bad
	}
	return &db.Brc20HolderKey{TotalBalance: parts[1], Address: parts[2]}, nil
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

// Holders pages the token's holders forward, largest balance first.
func (r *brc20TokenResolver) Holders(ctx context.Context, t *db.Brc20Token, first *int32, after *string) (*graph.Brc20HolderConnection, error) {
	ks, n, err := r.keyset(list{}, relayArgs{first: first})
	if err != nil {
		return nil, err
	}
	var key *db.Brc20HolderKey
	if after != nil {
		if key, err = decodeHolderCursor(*after); err != nil {
			return nil, err
		}
	}
	rows, err := r.Store.Brc20Holders(ctx, t.Ticker, key, ks.Limit)
	if err != nil {
		return nil, err
	}
	more := len(rows) > n
	rows = rows[:min(n, len(rows))]
	c := &graph.Brc20HolderConnection{Edges: make([]*graph.Brc20HolderEdge, len(rows)), Nodes: make([]*graph.Brc20Holder, len(rows)),
		PageInfo: &graph.PageInfo{HasNextPage: more, HasPreviousPage: key != nil}, Ticker: t.Ticker}
	d := int(t.Decimals)
	for i, b := range rows {
		c.Nodes[i] = &graph.Brc20Holder{Address: b.Address, OverallBalance: scaled(b.TotalBalance, d),
			AvailableBalance: scaled(b.AvailBalance, d), TransferrableBalance: scaled(b.TransBalance, d)}
		c.Edges[i] = &graph.Brc20HolderEdge{Cursor: holderCursor(b), Node: c.Nodes[i]}
	}
	if len(rows) > 0 {
		c.PageInfo.StartCursor, c.PageInfo.EndCursor = &c.Edges[0].Cursor, &c.Edges[len(rows)-1].Cursor
	}
	return c, nil
}

func (r *Resolver) Brc20HolderConnection() graph.Brc20HolderConnectionResolver {
	return &brc20HolderConnectionResolver{r}
}

type brc20HolderConnectionResolver struct{ *Resolver }

// TotalCount counts the token's holders only when asked.
func (r *brc20HolderConnectionResolver) TotalCount(ctx context.Context, c *graph.Brc20HolderConnection) (int32, error) {
	n, err := r.Store.Brc20HolderCount(ctx, c.Ticker)
	return int32(n), err
}
