package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// EventsPage asks for one keyset page of a principal's events of some kinds.
type EventsPage struct {
	Page
	Kinds db.EventKinds
}

// principalEvents batches pages of principals' events: keys asking for the same page and kinds
// share one statement.
func principalEvents(store *db.Store) dataloader.BatchFunc[EventsPage, []db.Event] {
	return func(ctx context.Context, keys []EventsPage) []*dataloader.Result[[]db.Event] {
		type batch struct {
			ks    db.Keyset
			kinds db.EventKinds
		}
		byBatch := map[batch][]string{}
		for _, k := range keys {
			b := batch{k.Keyset, k.Kinds}
			byBatch[b] = append(byBatch[b], k.Parent)
		}
		found := make(map[EventsPage][]db.Event, len(keys))
		for b, principals := range byBatch {
			rows, err := store.EventsOfPrincipals(ctx, principals, b.kinds, b.ks)
			if err != nil {
				return failed[[]db.Event](len(keys), err)
			}
			for _, r := range rows {
				k := EventsPage{Page: Page{Parent: r.Principal, Keyset: b.ks}, Kinds: b.kinds}
				found[k] = append(found[k], r.Event)
			}
		}
		return answer(keys, found)
	}
}
