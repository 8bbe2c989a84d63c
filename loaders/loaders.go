// Package loaders batches the lookups GraphQL resolvers make: one set of dataloaders per request,
// built by a single middleware that /graphql and the REST adapter both pass through, so a query of
// any nesting runs a bounded number of SQL statements per level. Caches live only as long as the
// request, since a fork can change what is canonical.
package loaders

import (
	"context"
	"net/http"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// wait is how long a loader collects keys before it runs its batch: long enough for sibling
// resolvers to enqueue, short enough not to be felt (the library default of 16 ms is per level).
const wait = time.Millisecond

// Loaders holds every loader of one request.
type Loaders struct {
	BurnBlockByHash *dataloader.Loader[string, *db.BurnBlock]
}

// New builds the loaders for one request.
func New(store *db.Store) *Loaders {
	return &Loaders{
		BurnBlockByHash: newLoader(byKey(store.BurnBlocksByHash, func(b *db.BurnBlock) string { return string(b.BurnBlockHash) })),
	}
}

type ctxKey struct{}

// Middleware attaches fresh loaders to every request.
func Middleware(store *db.Store) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), New(store))))
		})
	}
}

// With returns ctx carrying l (for callers outside HTTP, such as tests and subscriptions).
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// For returns the request's loaders.
func For(ctx context.Context) *Loaders { return ctx.Value(ctxKey{}).(*Loaders) }

func newLoader[K comparable, V any](fn dataloader.BatchFunc[K, V]) *dataloader.Loader[K, V] {
	return dataloader.NewBatchedLoader(fn, dataloader.WithWait[K, V](wait), dataloader.WithBatchCapacity[K, V](1000))
}

// byKey adapts a "fetch rows for these keys" store method into a batch function that answers
// each key in order, with nil for keys that have no row.
func byKey[K comparable, V any](fetch func(context.Context, []K) ([]V, error), key func(V) K) dataloader.BatchFunc[K, V] {
	return func(ctx context.Context, keys []K) []*dataloader.Result[V] {
		out := make([]*dataloader.Result[V], len(keys))
		rows, err := fetch(ctx, keys)
		if err != nil {
			for i := range out {
				out[i] = &dataloader.Result[V]{Error: err}
			}
			return out
		}
		found := make(map[K]V, len(rows))
		for _, r := range rows {
			found[key(r)] = r
		}
		for i, k := range keys {
			out[i] = &dataloader.Result[V]{Data: found[k]}
		}
		return out
	}
}
