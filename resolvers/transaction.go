package resolvers

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Mined and mempool transactions share the fields decoded from their bytes; both resolver types
// delegate to the functions on *db.TxFields below.

type mempoolTransactionResolver struct{ *Resolver }

func (r *Resolver) MempoolTransaction() graph.MempoolTransactionResolver {
	return mempoolTransactionResolver{r}
}

func (r queryResolver) TransactionsByIds(ctx context.Context, ids [][]byte, unanchored *bool) ([]*graph.TransactionLookup, error) {
	keys := uniqueKeys(ids)
	mined, err := r.Store.CanonicalTxsByID(ctx, keys, deref(unanchored), txLookupColumns(ctx))
	if err != nil {
		return nil, err
	}
	loaders.ReadEvents(ctx, mined, txEventsAsked(ctx, lookupTxs))
	byID := make(map[string]*db.Tx, len(mined))
	for _, t := range mined {
		byID[string(t.TxID)] = t
	}
	var rest []string
	for _, k := range keys {
		if byID[k] == nil {
			rest = append(rest, k)
		}
	}
	pending, errs := loaders.For(ctx).MempoolTxByID.LoadMany(ctx, rest)()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// The reference lists mined transactions first, then mempool ones, then the unknown ids.
	out := make([]*graph.TransactionLookup, 0, len(keys))
	var notFound []*graph.TransactionLookup
	for _, k := range keys {
		if t := byID[k]; t != nil {
			out = append(out, &graph.TransactionLookup{TxID: t.TxID, Found: true, Result: t})
		}
	}
	for i, k := range rest {
		if m := pending[i]; m != nil {
			out = append(out, &graph.TransactionLookup{TxID: m.TxID, Found: true, Result: m})
		} else {
			notFound = append(notFound, &graph.TransactionLookup{TxID: []byte(k)})
		}
	}
	return append(out, notFound...), nil
}

// uniqueKeys turns ids into loader keys, dropping repeats.
func uniqueKeys(ids [][]byte) []string {
	seen := make(map[string]bool, len(ids))
	keys := make([]string, 0, len(ids))
	for _, id := range ids {
		if k := string(id); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// contractCall renders a contract call; withABI, with the function signature and argument names
// and types of the called contract's ABI when the contract is known.
func contractCall(ctx context.Context, f *db.TxFields, withABI bool) (*tx.ContractCallJSON, error) {
	p, err := f.Payload(db.TypeContractCall)
	if p == nil || !withABI {
		return payloadCall(p), err
	}
	cc := p.ContractCall
	c, err := loaders.For(ctx).ContractByID.Load(ctx, cc.ContractID)()
	if err != nil || c == nil || len(c.ABI) == 0 {
		return cc, err
	}
	// An ABI that does not parse or render leaves the call as for an unknown contract
	// (ApplyABI changes nothing when it fails).
	if abi := contractABIs.parse(c); abi != nil {
		if fn, ok := abi.Function(cc.FunctionName); ok {
			_ = cc.ApplyABI(fn)
		}
	}
	return cc, nil
}

// payloadCall is the contract call of a decoded payload, nil without one.
func payloadCall(p *tx.PayloadJSON) *tx.ContractCallJSON {
	if p == nil {
		return nil
	}
	return p.ContractCall
}

// contractABIs holds the parsed ABIs of the contracts calls were rendered for: a page of calls
// to a popular contract would otherwise parse its whole ABI JSON once per transaction.
var contractABIs = newABICache(4096)

// abiCache is an LRU of parsed contract interfaces keyed by the contract row (id, deploying tx,
// block and microblock), whose ABI never changes; an ABI that does not parse is cached as nil.
type abiCache struct {
	lru *lru.Cache[string, *tx.ContractInterface]
}

func newABICache(size int) abiCache {
	c, err := lru.New[string, *tx.ContractInterface](size)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	return abiCache{lru: c}
}

func (a abiCache) parse(c *db.SmartContract) *tx.ContractInterface {
	key := c.ContractID + "\x00" + string(c.TxID) + string(c.IndexBlockHash) + string(c.MicroblockHash)
	if abi, ok := a.lru.Get(key); ok {
		return abi
	}
	abi, err := tx.ParseContractInterface(c.ABI)
	if err != nil {
		abi = nil
	}
	a.lru.Add(key, abi)
	return abi
}

// Events loads the transaction's events whose event_index falls in [offset, offset+limit),
// batched with every other transaction of the request (or read with its page or lookup:
// txEventsAsked).
func (r transactionResolver) Events(ctx context.Context, t *db.Tx, limit, offset *int32) ([]db.Event, error) {
	w, err := eventWindow(limit, offset)
	if err != nil {
		return []db.Event{}, err
	}
	key, some := loaders.EventsOf(t, w, eventColumns(ctx))
	if !some {
		return []db.Event{}, nil
	}
	es, err := loaders.For(ctx).TxEvents.Load(ctx, key)()
	if es == nil {
		es = []db.Event{}
	}
	return es, err
}

// eventWindow is the window of a transaction's events its limit and offset arguments ask for.
func eventWindow(limit, offset *int32) (db.EventWindow, error) {
	l, o, err := page(limit, offset, MaxEventLimit)
	return db.EventWindow{Offset: int32(o), Limit: int32(l)}, err
}

// txEventsAsked is the events that the transactions the field ctx resolves reads ask for (at
// paths: pageTxs, lookupTxs), for the read to fetch with them: those of their events fields,
// when they all ask for one window. Otherwise each transaction's field loads its own.
func txEventsAsked(ctx context.Context, paths [][]string) loaders.TxEventsRead {
	vars := graphql.GetOperationContext(ctx).Variables
	var read eventsAsked
	if !everyFieldAsked(ctx, paths, func(f *ast.Field) bool { return f.Name != "events" || read.add(f, vars) }) {
		return loaders.TxEventsRead{}
	}
	return read.TxEventsRead
}

// eventsAsked is what the events fields of a selection of transactions have asked for so far.
type eventsAsked struct{ loaders.TxEventsRead }

// add takes the events field f in, and reports whether it asks for the window of those before
// (with the variables vars): a window of its own, or arguments the field would refuse, leave
// the events to the fields.
func (a *eventsAsked) add(f *ast.Field, vars map[string]any) bool {
	w, err := eventsFieldWindow(f, vars)
	if err != nil || (a.Read && w != a.Window) {
		return false
	}
	columns := eventColumnsOf(f.SelectionSet)
	if a.Read && a.Columns != columns {
		columns = db.AllEventColumns
	}
	a.TxEventsRead = loaders.TxEventsRead{Read: true, Window: w, Columns: columns}
	return true
}

// eventsFieldWindow is the window of a transaction's events that events field f asks for (with
// the variables vars), as its resolver would find it, or the error its resolver would report.
func eventsFieldWindow(f *ast.Field, vars map[string]any) (db.EventWindow, error) {
	if f.Definition == nil {
		return db.EventWindow{}, fmt.Errorf("field %s is not in the schema", f.Name)
	}
	args := f.ArgumentMap(vars)
	limit, err := optionalInt32(args["limit"])
	if err != nil {
		return db.EventWindow{}, err
	}
	offset, err := optionalInt32(args["offset"])
	if err != nil {
		return db.EventWindow{}, err
	}
	return eventWindow(limit, offset)
}

// optionalInt32 is an optional Int argument's value as the field's resolver receives it: nil when
// absent, else by gqlgen's rule for Int.
func optionalInt32(v any) (*int32, error) {
	if v == nil {
		return nil, nil
	}
	n, err := graphql.UnmarshalInt32(v)
	return &n, err
}

func (r transactionResolver) ContractCall(ctx context.Context, t *db.Tx, abi *bool) (*tx.ContractCallJSON, error) {
	return contractCall(ctx, &t.TxFields, abi == nil || *abi)
}

func (r mempoolTransactionResolver) ContractCall(ctx context.Context, t *db.MempoolTx, abi *bool) (*tx.ContractCallJSON, error) {
	return contractCall(ctx, &t.TxFields, abi == nil || *abi)
}
