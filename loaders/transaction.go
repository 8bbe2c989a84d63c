package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// TxEventsKey asks for the events of one transaction row within a per-transaction window. The
// row is named by its model, whose identity is cheaper to hash than its key's three hashes: the
// same row read twice in one request (in two lists, say) is two keys, read by one statement.
type TxEventsKey struct {
	Tx      *db.Tx
	Window  db.EventWindow
	Columns db.EventColumns // those the selection reads
}

// EventsOf is the key of transaction t's events in window w with columns c, and whether the
// window holds any: event indexes run from 0 to the row's event count, so a window past it (or
// of none) has nothing to read.
func EventsOf(t *db.Tx, w db.EventWindow, c db.EventColumns) (TxEventsKey, bool) {
	k := TxEventsKey{Tx: t, Window: w, Columns: c}
	return k, w.Limit > 0 && w.Offset < t.EventCount
}

// TxEventsRead is the events that a read of transactions (a page, a lookup by id) asks for of
// each one, when Read: those in Window, with Columns. They are read with the transactions
// (ReadEvents), instead of in a round of the loaders for the level of transactions.
type TxEventsRead struct {
	Read    bool
	Window  db.EventWindow
	Columns db.EventColumns
}

// withEvents reads, after a batch of transaction pages, the events the pages ask for too
// (ReadEvents): one statement for every page of the batch that asks for one window.
func withEvents(pages dataloader.BatchFunc[Page, []*db.Tx]) dataloader.BatchFunc[Page, []*db.Tx] {
	return func(ctx context.Context, keys []Page) []*dataloader.Result[[]*db.Tx] {
		out := pages(ctx, keys)
		byRead := map[TxEventsRead][]*db.Tx{}
		for i, p := range keys {
			if p.Events.Read && out[i].Error == nil {
				byRead[p.Events] = append(byRead[p.Events], out[i].Data...)
			}
		}
		for r, txs := range byRead {
			ReadEvents(ctx, txs, r)
		}
		return out
	}
}

// ReadEvents reads, as TxEvents would, the events r asks for of each of txs, and primes TxEvents
// with them: each transaction's events field then finds them there instead of waiting for a
// batch of its own. A read that fails primes nothing: each field then reads its own, and reports
// what it meets.
func ReadEvents(ctx context.Context, txs []*db.Tx, r TxEventsRead) {
	if !r.Read {
		return
	}
	var want []TxEventsKey
	seen := map[TxEventsKey]bool{}
	for _, t := range txs {
		if k, some := EventsOf(t, r.Window, r.Columns); some && !seen[k] {
			seen[k] = true
			want = append(want, k)
		}
	}
	if len(want) == 0 {
		return
	}
	events := &For(ctx).TxEvents
	for i, res := range events.fn(ctx, want) {
		if res.Error == nil {
			events.prime(ctx, want[i], res.Data)
		}
	}
}

// EventsRead reports whether the events of each of txs in window w with columns c were read
// with them (ReadEvents), or are none: their events fields then wait for no batch.
func EventsRead(ctx context.Context, txs []*db.Tx, w db.EventWindow, c db.EventColumns) bool {
	return primedFor(ctx, &For(ctx).TxEvents, txs, func(t *db.Tx) (TxEventsKey, bool) { return EventsOf(t, w, c) })
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
			txs := make([]*db.Tx, len(ks))
			for i, k := range ks {
				txs[i] = k.Tx
			}
			es, err := store.EventsOfTxs(ctx, txs, b.window, b.columns)
			if err != nil {
				return failed[[]db.Event](len(keys), err)
			}
			for i, k := range ks {
				found[k] = es[i]
			}
		}
		return answer(keys, found)
	}
}
