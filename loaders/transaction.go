package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// TxEventsKey asks for the events of one transaction row within a per-transaction window.
type TxEventsKey struct {
	Tx      db.TxKey
	Kinds   db.EventKinds // those the transaction's type can emit (db.EventKindsOfType)
	Window  db.EventWindow
	Columns db.EventColumns // those the selection reads
}

// txEventsBatch is the keys one statement answers: the same window and columns.
type txEventsBatch struct {
	window  db.EventWindow
	columns db.EventColumns
}

// txEvents batches the event windows of many transactions: one statement per distinct window
// and columns (a request normally has one).
func txEvents(store *db.Store) dataloader.BatchFunc[TxEventsKey, []db.Event] {
	return func(ctx context.Context, keys []TxEventsKey) []*dataloader.Result[[]db.Event] {
		batches := map[txEventsBatch][]TxEventsKey{}
		for _, k := range keys {
			b := txEventsBatch{k.Window, k.Columns}
			batches[b] = append(batches[b], k)
		}
		found := make(map[TxEventsKey][]db.Event, len(keys))
		for b, ks := range batches {
			txs, kinds := make([]db.TxKey, len(ks)), make([]db.EventKinds, len(ks))
			kindsOf := make(map[db.TxKey]db.EventKinds, len(ks))
			for i, k := range ks {
				txs[i], kinds[i], kindsOf[k.Tx] = k.Tx, k.Kinds, k.Kinds
			}
			es, err := store.EventsOfTxs(ctx, txs, kinds, b.window, b.columns)
			if err != nil {
				return failed[[]db.Event](len(keys), err)
			}
			for _, e := range es {
				p := e.Position()
				tx := db.TxKey{TxID: string(p.TxID), IndexBlockHash: string(p.IndexBlockHash), MicroblockHash: string(p.MicroblockHash)}
				k := TxEventsKey{Tx: tx, Kinds: kindsOf[tx], Window: b.window, Columns: b.columns}
				found[k] = append(found[k], e)
			}
		}
		return answer(keys, found)
	}
}

func blockTxIDs(store *db.Store) dataloader.BatchFunc[string, *db.BlockTxIDs] {
	return byKey(store.TxIDsOfBlocks, func(r *db.BlockTxIDs) string { return string(r.IndexBlockHash) })
}

func microblockTxCounts(store *db.Store) dataloader.BatchFunc[string, []*db.MicroblockTxCount] {
	return grouped(store.MicroblockTxCountsOfBlocks, func(r *db.MicroblockTxCount) string { return string(r.IndexBlockHash) })
}
