package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// BalanceKey asks for one principal's balance at one state.
type BalanceKey struct {
	Principal string
	At        db.BalanceAt
}

// stxBalances loads every balance a request asks for with one statement per kind of state (a
// REST balance read has one): an account's balance, mempool figures and newest transaction ids
// (the REST ETag inputs) all come from the same row.
func stxBalances(store *db.Store) dataloader.BatchFunc[BalanceKey, *db.StxBalance] {
	return func(ctx context.Context, keys []BalanceKey) []*dataloader.Result[*db.StxBalance] {
		byState := map[db.BalanceAt][]string{}
		for _, k := range keys {
			byState[k.At] = append(byState[k.At], k.Principal)
		}
		found := make(map[BalanceKey]*db.StxBalance, len(keys))
		for at, principals := range byState {
			rows, err := store.StxBalances(ctx, principals, at)
			if err != nil {
				return failed[*db.StxBalance](len(keys), err)
			}
			for _, r := range rows {
				found[BalanceKey{Principal: r.Principal, At: at}] = r
			}
		}
		return answer(keys, found)
	}
}
