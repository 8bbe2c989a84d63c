package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// BalanceKey asks for one principal's balance at one state, or with AnyState for the figures every
// state's row carries alike (the newest transaction ids, the REST ETag inputs, and the
// transaction count): those share the row of whichever state the batch reads for the principal,
// the tip's when it reads none.
type BalanceKey struct {
	Principal string
	At        db.BalanceAt
	AnyState  bool
}

// stxBalances loads every balance a request asks for with one statement per kind of state (a
// REST balance read, at the tip or at a height, has one).
func stxBalances(store *db.Store) dataloader.BatchFunc[BalanceKey, *db.StxBalance] {
	return func(ctx context.Context, keys []BalanceKey) []*dataloader.Result[*db.StxBalance] {
		byState := map[db.BalanceAt][]string{}
		read := map[string]bool{}
		for _, k := range keys {
			if !k.AnyState {
				byState[k.At] = append(byState[k.At], k.Principal)
				read[k.Principal] = true
			}
		}
		for _, k := range keys {
			if k.AnyState && !read[k.Principal] {
				byState[db.BalanceAt{}] = append(byState[db.BalanceAt{}], k.Principal)
				read[k.Principal] = true
			}
		}
		found := make(map[BalanceKey]*db.StxBalance, len(keys))
		for at, principals := range byState {
			rows, err := store.StxBalances(ctx, principals, at)
			if err != nil {
				return failed[*db.StxBalance](len(keys), err)
			}
			for _, r := range rows {
				found[BalanceKey{Principal: r.Principal, At: at}] = r
				found[BalanceKey{Principal: r.Principal, AnyState: true}] = r
			}
		}
		return answer(keys, found)
	}
}
