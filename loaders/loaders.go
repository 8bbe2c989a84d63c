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

// DefaultWait is the wait of loaders that run outside Batching (tests, direct resolver calls),
// where only the wait batches: long enough for sibling resolvers to enqueue on an idle machine,
// short enough not to be felt (the library default of 16 ms is paid per level of nesting).
const DefaultWait = time.Millisecond

// Page asks for one keyset page of the list under Parent (a block's index hash, a principal, a
// contract id) and, for a list of transactions, the columns its query shows and the events of
// each transaction it asks for too. Keys with the same Keyset and Columns share one SQL statement.
type Page struct {
	Parent  string
	Keyset  db.Keyset
	Columns db.TxColumns
	Events  TxEventsRead
}

// Loaders holds every loader of one request.
type Loaders struct {
	sched *scheduler

	BurnBlockByHash     Loader[string, *db.BurnBlock]
	BlockByIndexHash    Loader[string, *db.Block]
	BlockTxs            Loader[Page, []*db.Tx]
	MicroblocksAccepted Loader[string, []*db.Microblock]
	MicroblocksStreamed Loader[string, []*db.Microblock]
	MicroblockByHash    Loader[string, *db.Microblock]
	MicroblockTxs       Loader[db.MicroblockKey, []*db.Tx]
	MinerRewards        Loader[string, []*db.MinerReward]
	TxByKey             Loader[db.TxKey, *db.Tx]
	PrincipalTxs        Loader[Page, []*db.Tx]
	PrincipalEvents     Loader[EventsPage, []db.Event]
	ContractByID        Loader[string, *db.SmartContract]
	ContractLogs        Loader[Page, []*db.ContractLog]
	MempoolTxByID       Loader[string, *db.MempoolTx]
	TxEvents            Loader[TxEventsKey, []db.Event]
	BlockContents       Loader[string, *db.BlockContents]
	StxBalance          Loader[BalanceKey, *db.StxBalance]
	AccountNonces       Loader[string, *db.AccountNonces]
	Pox4Lock            Loader[string, *db.Pox4Lock]
	Brc20Token          Loader[string, *db.Brc20Token]
	Brc20Holders        Loader[Brc20HoldersKey, []*db.Brc20Balance]
	PoxSigners          Loader[PoxSignersKey, *db.PoxSignerPage]
	PoxSigner           Loader[db.PoxSignerKey, *db.PoxSigner]
	PoxStackers         Loader[PoxStackersKey, *db.PoxStackerPage]
	BlockTxsAt          Loader[OffsetPage, []*db.Tx]
}

// New builds the loaders for one request, batching with DefaultWait.
func New(store *db.Store) *Loaders { return NewFactory(store).New(DefaultWait) }

// Factory builds the loaders of requests over one store. Their batch functions depend on the
// store alone, so they are made once: a request's loaders are a copy of the factory's, which
// costs one allocation where making them cost dozens, on every request.
type Factory struct{ template Loaders }

// New builds the loaders for one request. Under Batching they dispatch as soon as the request's
// resolvers all wait, and at the latest after wait; elsewhere after wait.
func (f *Factory) New(wait time.Duration) *Loaders {
	l := f.template
	l.sched = &scheduler{wait: wait}
	return &l
}

// NewFactory makes the batch functions of every loader over store.
func NewFactory(store *db.Store) *Factory {
	return &Factory{Loaders{
		BurnBlockByHash:  newLoader(byKey(store.BurnBlocksByHash, func(b *db.BurnBlock) string { return string(b.BurnBlockHash) })),
		BlockByIndexHash: newLoader(byKey(store.BlocksByIndexHash, func(b *db.Block) string { return string(b.IndexBlockHash) })),
		BlockTxs: newLoader(withEvents(paged(store.TxsOfBlocks, func(t *db.Tx) (string, *db.Tx) {
			return string(t.IndexBlockHash), t
		}))),
		MicroblocksAccepted: newLoader(grouped(store.MicroblocksAccepted, func(m *db.Microblock) string { return string(m.IndexBlockHash) })),
		MicroblocksStreamed: newLoader(grouped(store.MicroblocksStreamed, func(m *db.Microblock) string { return string(m.ParentIndexBlockHash) })),
		MicroblockByHash:    newLoader(byKey(store.MicroblocksByHash, func(m *db.Microblock) string { return string(m.MicroblockHash) })),
		MicroblockTxs: newLoader(grouped(store.TxsOfMicroblocks, func(t *db.Tx) db.MicroblockKey {
			return db.MicroblockKey{MicroblockHash: string(t.MicroblockHash), IndexBlockHash: string(t.IndexBlockHash)}
		})),
		MinerRewards: newLoader(grouped(store.MinerRewardsOfBlocks, func(r *db.MinerReward) string { return string(r.IndexBlockHash) })),
		TxByKey:      newLoader(byKey(store.TxsByKey, (*db.Tx).Key)),
		PrincipalTxs: newLoader(withEvents(paged(store.TxsOfPrincipals, func(r *db.PrincipalTxRow) (string, *db.Tx) {
			return r.Principal, &r.Tx
		}))),
		PrincipalEvents: newLoader(principalEvents(store)),
		ContractByID:    newLoader(byKey(store.ContractsByID, func(c *db.SmartContract) string { return c.ContractID })),
		ContractLogs: newLoader(paged(allColumns(store.ContractLogsOf), func(l *db.ContractLog) (string, *db.ContractLog) {
			return l.ContractIdentifier, l
		})),
		MempoolTxByID: newLoader(byKey(store.MempoolTxsByID, func(t *db.MempoolTx) string { return string(t.TxID) })),
		TxEvents:      newLoader(txEvents(store)),
		BlockContents: newLoader(byKey(store.ContentsOfBlocks, func(c *db.BlockContents) string { return string(c.IndexBlockHash) })),
		StxBalance:    newLoader(stxBalances(store)),
		AccountNonces: newLoader(byKey(store.NoncesOf, func(n *db.AccountNonces) string { return n.Principal })),
		Pox4Lock:      newLoader(byKey(store.Pox4Locks, func(l *db.Pox4Lock) string { return l.Principal })),
		Brc20Token:    newLoader(brc20Tokens(store)),
		Brc20Holders:  newLoader(brc20Holders(store)),
		PoxSigners:    newLoader(poxSigners(store)),
		PoxSigner:     newLoader(poxSigner(store)),
		PoxStackers:   newLoader(poxStackers(store)),
		BlockTxsAt:    newLoader(blockTxsAt(store)),
	}}
}

type ctxKey struct{}

// Middleware attaches fresh loaders (batching with wait) to every request.
func Middleware(store *db.Store, wait time.Duration) func(http.Handler) http.Handler {
	f := NewFactory(store)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(With(r.Context(), f.New(wait))))
		})
	}
}

// With returns ctx carrying l (for callers outside HTTP, such as tests and subscriptions).
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// For returns the request's loaders.
func For(ctx context.Context) *Loaders { return ctx.Value(ctxKey{}).(*Loaders) }

// failed answers every key of a batch with err.
func failed[V any](n int, err error) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], n)
	for i := range out {
		out[i] = &dataloader.Result[V]{Error: err}
	}
	return out
}

// answer answers each key in order from found (the zero value for keys without rows).
func answer[K comparable, V any](keys []K, found map[K]V) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], len(keys))
	for i, k := range keys {
		out[i] = &dataloader.Result[V]{Data: found[k]}
	}
	return out
}

// byKey adapts a "fetch rows for these keys" store method into a batch function that answers
// each key with its row, or nil when it has none.
func byKey[K comparable, V any](fetch func(context.Context, []K) ([]V, error), key func(V) K) dataloader.BatchFunc[K, V] {
	return func(ctx context.Context, keys []K) []*dataloader.Result[V] {
		rows, err := fetch(ctx, keys)
		if err != nil {
			return failed[V](len(keys), err)
		}
		found := make(map[K]V, len(rows))
		for _, r := range rows {
			found[key(r)] = r
		}
		return answer(keys, found)
	}
}

// grouped adapts a "fetch the children of these parents" store method into a batch function that
// answers each parent with its children, in the order the store returned them.
func grouped[K comparable, V any](fetch func(context.Context, []K) ([]V, error), parent func(V) K) dataloader.BatchFunc[K, []V] {
	return func(ctx context.Context, keys []K) []*dataloader.Result[[]V] {
		rows, err := fetch(ctx, keys)
		if err != nil {
			return failed[[]V](len(keys), err)
		}
		found := make(map[K][]V, len(keys))
		for _, r := range rows {
			found[parent(r)] = append(found[parent(r)], r)
		}
		return answer(keys, found)
	}
}

// paged adapts a "fetch one page of the children of these parents" store method: keys asking for
// the same page (the same cursor, size and direction) share one statement, so a query runs one
// statement per distinct page argument per level, however many parents it reaches.
func paged[R, V any](fetch func(context.Context, []string, db.Keyset, db.TxColumns) ([]R, error), split func(R) (string, V)) dataloader.BatchFunc[Page, []V] {
	type shape struct {
		keyset  db.Keyset
		columns db.TxColumns
	}
	return func(ctx context.Context, keys []Page) []*dataloader.Result[[]V] {
		byPage := map[shape][]string{}
		asked := map[Page]bool{} // keys that differ in the events they ask for too share a page
		for _, k := range keys {
			k.Events = TxEventsRead{}
			if !asked[k] {
				asked[k] = true
				sh := shape{k.Keyset, k.Columns}
				byPage[sh] = append(byPage[sh], k.Parent)
			}
		}
		found := make(map[Page][]V, len(keys))
		for sh, parents := range byPage {
			rows, err := fetch(ctx, parents, sh.keyset, sh.columns)
			if err != nil {
				return failed[[]V](len(keys), err)
			}
			for _, r := range rows {
				parent, v := split(r)
				k := Page{Parent: parent, Keyset: sh.keyset, Columns: sh.columns}
				found[k] = append(found[k], v)
			}
		}
		out := make([]*dataloader.Result[[]V], len(keys))
		for i, k := range keys { // the events a key asks for too are not the page's rows
			k.Events = TxEventsRead{}
			out[i] = &dataloader.Result[[]V]{Data: found[k]}
		}
		return out
	}
}

// allColumns adapts a page read of rows that are not transactions, which reads all its columns.
func allColumns[R any](fetch func(context.Context, []string, db.Keyset) ([]R, error)) func(context.Context, []string, db.Keyset, db.TxColumns) ([]R, error) {
	return func(ctx context.Context, parents []string, k db.Keyset, _ db.TxColumns) ([]R, error) {
		return fetch(ctx, parents, k)
	}
}

// PrimeBlockReads answers, for the rest of the request, BlockContents and BurnBlockByHash with
// what the reads of blocks read beside them (db.BlockExtras): the blocks' fields then wait for no
// batch of their own.
func PrimeBlockReads(ctx context.Context, reads []*db.BlockRead) {
	f := For(ctx)
	for _, r := range reads {
		if r.Extras.Contents {
			f.BlockContents.prime(ctx, string(r.IndexBlockHash), r.Contents)
		}
		if r.Extras.BurnBlock {
			f.BurnBlockByHash.prime(ctx, string(r.BurnBlockHash), r.BurnBlock)
		}
	}
}

// BlockContentsRead reports whether the contents of each of blocks were read with them
// (PrimeBlockReads): their contents fields then wait for no batch.
func BlockContentsRead(ctx context.Context, blocks []*db.Block) bool {
	return primedFor(ctx, &For(ctx).BlockContents, blocks, func(b *db.Block) (string, bool) { return string(b.IndexBlockHash), true })
}

// BurnBlocksRead reports whether the burn block of each of blocks was read with them
// (PrimeBlockReads): their burnBlock fields then wait for no batch.
func BurnBlocksRead(ctx context.Context, blocks []*db.Block) bool {
	return primedFor(ctx, &For(ctx).BurnBlockByHash, blocks, func(b *db.Block) (string, bool) { return string(b.BurnBlockHash), true })
}
