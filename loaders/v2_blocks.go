package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// OffsetPage asks for one page of a block's transactions by position: Limit of them after
// skipping Offset. Keys with the same Limit and Offset share one SQL statement.
type OffsetPage struct {
	Parent        string
	Limit, Offset int
}

// blockTxsAt batches offset pages of blocks' transactions, one statement per page shape.
func blockTxsAt(store *db.Store) dataloader.BatchFunc[OffsetPage, []*db.Tx] {
	type shape struct{ limit, offset int }
	return func(ctx context.Context, keys []OffsetPage) []*dataloader.Result[[]*db.Tx] {
		byShape := map[shape][]string{}
		for _, k := range keys {
			sh := shape{k.Limit, k.Offset}
			byShape[sh] = append(byShape[sh], k.Parent)
		}
		found := make(map[OffsetPage][]*db.Tx, len(keys))
		for sh, parents := range byShape {
			txs, err := store.TxsOfBlockAt(ctx, parents, sh.limit, sh.offset)
			if err != nil {
				return failed[[]*db.Tx](len(keys), err)
			}
			for _, t := range txs {
				k := OffsetPage{Parent: string(t.IndexBlockHash), Limit: sh.limit, Offset: sh.offset}
				found[k] = append(found[k], t)
			}
		}
		return answer(keys, found)
	}
}
