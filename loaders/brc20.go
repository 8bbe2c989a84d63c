package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// Brc20HoldersKey asks for one page of one token's holders (its lower-case ticker).
type Brc20HoldersKey struct {
	Ticker string
	Page   db.Brc20Page
}

// brc20Tokens answers tickers given in any case with their tokens, in one statement.
func brc20Tokens(store *db.Store) dataloader.BatchFunc[string, *db.Brc20Token] {
	return func(ctx context.Context, tickers []string) []*dataloader.Result[*db.Brc20Token] {
		rows, err := store.Brc20TokensByTicker(ctx, tickers)
		if err != nil {
			return failed[*db.Brc20Token](len(tickers), err)
		}
		found := make(map[string]*db.Brc20Token, len(rows))
		for _, r := range rows {
			found[r.Requested] = &r.Brc20Token
		}
		return answer(tickers, found)
	}
}

// brc20Holders reads the holder pages of every token a request lists with one statement per
// distinct page argument.
func brc20Holders(store *db.Store) dataloader.BatchFunc[Brc20HoldersKey, []*db.Brc20Balance] {
	return func(ctx context.Context, keys []Brc20HoldersKey) []*dataloader.Result[[]*db.Brc20Balance] {
		byPage := map[db.Brc20Page][]string{}
		for _, k := range keys {
			byPage[k.Page] = append(byPage[k.Page], k.Ticker)
		}
		found := make(map[Brc20HoldersKey][]*db.Brc20Balance, len(keys))
		for p, tickers := range byPage {
			rows, err := store.Brc20HoldersOf(ctx, tickers, p)
			if err != nil {
				return failed[[]*db.Brc20Balance](len(keys), err)
			}
			for _, r := range rows {
				k := Brc20HoldersKey{Ticker: r.Ticker, Page: p}
				found[k] = append(found[k], r)
			}
		}
		return answer(keys, found)
	}
}
