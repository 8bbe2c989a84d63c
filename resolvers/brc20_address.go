package resolvers

import (
	"context"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
)

// The BRC-20 view of a Bitcoin address and the activity lists. Addresses are matched as the
// indexer stores owners (the payload's address strings, "" for scripts without one), so they are
// not parsed here.

type (
	brc20AddressResolver                struct{ *Resolver }
	brc20BalanceConnectionResolver      struct{ *Resolver }
	brc20ActivityConnectionResolver     struct{ *Resolver }
	brc20TransferableConnectionResolver struct{ *Resolver }
)

func (r *Resolver) Brc20Address() graph.Brc20AddressResolver { return brc20AddressResolver{r} }
func (r *Resolver) Brc20BalanceConnection() graph.Brc20BalanceConnectionResolver {
	return brc20BalanceConnectionResolver{r}
}
func (r *Resolver) Brc20ActivityConnection() graph.Brc20ActivityConnectionResolver {
	return brc20ActivityConnectionResolver{r}
}
func (r *Resolver) Brc20TransferableConnection() graph.Brc20TransferableConnectionResolver {
	return brc20TransferableConnectionResolver{r}
}

func (r queryResolver) Brc20Address(_ context.Context, address string) (*graph.Brc20Address, error) {
	if err := checkText("address", address); err != nil {
		return nil, err
	}
	return &graph.Brc20Address{Address: address}, nil
}

func (r brc20AddressResolver) Balances(ctx context.Context, a *graph.Brc20Address, tickers []string, blockHeight *int32, first *int32, after *string, offset *int32) (*graph.Brc20BalanceConnection, error) {
	if err := checkTexts("ticker", tickers); err != nil {
		return nil, err
	}
	if blockHeight != nil && *blockHeight < 0 {
		return nil, invalid("blockHeight must be 0 or more")
	}
	f := db.Brc20BalanceFilter{Prefixes: tickers, AtHeight: blockHeight}
	pg, err := brc20Connection(ctx, r.Resolver, brc20BalanceList, first, after, offset, func(p db.Brc20Page) ([]*db.Brc20Balance, error) {
		return r.Store.Brc20Balances(ctx, a.Address, f, p)
	}, func(b *db.Brc20Balance) db.Brc20Cursor {
		return db.Brc20Cursor{Set: true, Num: b.TotalBalance, Text: b.Ticker}
	})
	if err != nil {
		return nil, err
	}
	return &graph.Brc20BalanceConnection{Nodes: pg.nodes, PageInfo: pg.info, Address: a.Address, Filter: f,
		Edges: edges(pg, func(c string, b *db.Brc20Balance) *graph.Brc20BalanceEdge {
			return &graph.Brc20BalanceEdge{Cursor: c, Node: b}
		})}, nil
}

func (r brc20BalanceConnectionResolver) TotalCount(ctx context.Context, c *graph.Brc20BalanceConnection) (int32, error) {
	n, err := r.Store.Brc20BalanceCount(ctx, c.Address, c.Filter)
	return int32(n), err
}

func (r brc20AddressResolver) Activity(ctx context.Context, a *graph.Brc20Address, tickers []string, operations []db.Brc20Operation, blockHeight *int32, first *int32, after *string, offset *int32) (*graph.Brc20ActivityConnection, error) {
	return r.brc20Activity(ctx, tickers, operations, a.Address, blockHeight, first, after, offset)
}

func (r queryResolver) Brc20Activity(ctx context.Context, tickers []string, operations []db.Brc20Operation, address *string, blockHeight *int32, first *int32, after *string, offset *int32) (*graph.Brc20ActivityConnection, error) {
	a := ""
	if address != nil {
		if err := checkText("address", *address); err != nil {
			return nil, err
		}
		a = *address
	}
	return r.brc20Activity(ctx, tickers, operations, a, blockHeight, first, after, offset)
}

// brc20Activity pages the operations the filters keep, newest first.
func (r *Resolver) brc20Activity(ctx context.Context, tickers []string, operations []db.Brc20Operation, address string, blockHeight *int32, first *int32, after *string, offset *int32) (*graph.Brc20ActivityConnection, error) {
	if err := checkTexts("ticker", tickers); err != nil {
		return nil, err
	}
	f := db.Brc20ActivityFilter{Tickers: tickers, Address: address, BlockHeight: blockHeight}
	for _, op := range operations {
		f.Operations = append(f.Operations, strings.ToLower(string(op)))
	}
	pg, err := brc20Connection(ctx, r, brc20ActivityList, first, after, offset, func(p db.Brc20Page) ([]*db.Brc20Activity, error) {
		return r.Store.Brc20Activity(ctx, f, p)
	}, func(o *db.Brc20Activity) db.Brc20Cursor {
		return db.Brc20Cursor{Set: true, Key: [2]int64{int64(o.BlockHeight), int64(o.EventIndex)}}
	})
	if err != nil {
		return nil, err
	}
	return &graph.Brc20ActivityConnection{Nodes: pg.nodes, PageInfo: pg.info, Filter: f,
		Edges: edges(pg, func(c string, o *db.Brc20Activity) *graph.Brc20ActivityEdge {
			return &graph.Brc20ActivityEdge{Cursor: c, Node: o}
		})}, nil
}

func (r brc20ActivityConnectionResolver) TotalCount(ctx context.Context, c *graph.Brc20ActivityConnection) (int32, error) {
	n, err := r.Store.Brc20ActivityCount(ctx, c.Filter)
	return int32(n), err
}

func (r brc20AddressResolver) Transferables(ctx context.Context, a *graph.Brc20Address, tickers []string, first *int32, after *string, offset *int32) (*graph.Brc20TransferableConnection, error) {
	if err := checkTexts("ticker", tickers); err != nil {
		return nil, err
	}
	f := db.Brc20TransferableFilter{Address: a.Address, Tickers: tickers}
	pg, err := brc20Connection(ctx, r.Resolver, brc20TransferList, first, after, offset, func(p db.Brc20Page) ([]*db.Brc20Transferable, error) {
		return r.Store.Brc20Transferables(ctx, f, p)
	}, func(t *db.Brc20Transferable) db.Brc20Cursor {
		return db.Brc20Cursor{Set: true, Key: [2]int64{int64(t.BlockHeight), int64(t.TxIndex)}, Text: t.InscriptionID}
	})
	if err != nil {
		return nil, err
	}
	return &graph.Brc20TransferableConnection{Nodes: pg.nodes, PageInfo: pg.info, Filter: f,
		Edges: edges(pg, func(c string, t *db.Brc20Transferable) *graph.Brc20TransferableEdge {
			return &graph.Brc20TransferableEdge{Cursor: c, Node: t}
		})}, nil
}

func (r brc20TransferableConnectionResolver) TotalCount(ctx context.Context, c *graph.Brc20TransferableConnection) (int32, error) {
	n, err := r.Store.Brc20TransferableCount(ctx, c.Filter)
	return int32(n), err
}
