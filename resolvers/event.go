package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

func (r queryResolver) Events(ctx context.Context, txID []byte, principal *string, types []db.EventType, limit, offset *int32) ([]db.Event, error) {
	switch {
	case txID == nil && principal == nil:
		return nil, invalid(MsgNoAddressOrTxID)
	case txID != nil && principal != nil:
		return nil, invalid(MsgAddressAndTxID)
	}
	if principal != nil {
		if err := validPrincipal(*principal); err != nil {
			return nil, err
		}
	}
	l, o, err := page(limit, offset, MaxEventsPage)
	if err != nil {
		return nil, err
	}
	if len(types) == 0 {
		types = db.AllEventTypes
	}
	es, err := r.Store.Events(ctx, db.EventFilter{TxID: txID, Principal: deref(principal), Types: uniqueTypes(types), Limit: l, Offset: o})
	if es == nil {
		es = []db.Event{}
	}
	return es, err
}

func uniqueTypes(ts []db.EventType) []db.EventType {
	seen := map[db.EventType]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (r queryResolver) ContractEvents(ctx context.Context, contractID string, limit, offset *int32, unanchored *bool) ([]*db.ContractLog, error) {
	l, o, err := page(limit, offset, MaxContractEventsPage)
	if err != nil {
		return nil, err
	}
	logs, err := r.Store.ContractEvents(ctx, contractID, l, o, deref(unanchored))
	if logs == nil {
		logs = []*db.ContractLog{}
	}
	return logs, err
}

// eventPositionFields are the Event fields that an event's kind and position answer.
var eventPositionFields = map[string]bool{"__typename": true, "eventIndex": true, "eventType": true, "txId": true, "transaction": true}

// eventColumns is the columns that the events of the list field ctx resolves must read: their
// kind and position alone when its selection asks for nothing else.
func eventColumns(ctx context.Context) db.EventColumns {
	return eventColumnsOf(graphql.GetFieldContext(ctx).Field.Selections)
}

// eventColumnsOf is the columns of events that selection sel on them reads.
func eventColumnsOf(sel ast.SelectionSet) db.EventColumns {
	if onlyPositionFields(sel) {
		return db.EventPositionColumns
	}
	return db.AllEventColumns
}

// onlyPositionFields reports whether a selection on events asks for nothing but position fields,
// on whatever type and under whatever directive.
func onlyPositionFields(sel ast.SelectionSet) bool {
	return graph.EveryField(sel, func(f *ast.Field) bool { return eventPositionFields[f.Name] })
}

// eventTx loads the canonical row of the transaction that emitted an event.
func eventTx(ctx context.Context, e db.Event) (*db.Tx, error) {
	p := e.Position()
	return loaders.For(ctx).TxByKey.Load(ctx, p.TxKey())()
}

func (r *Resolver) SmartContractLogEvent() graph.SmartContractLogEventResolver {
	return contractLogEventResolver{r}
}
func (r *Resolver) StxLockEvent() graph.StxLockEventResolver   { return stxLockEventResolver{r} }
func (r *Resolver) StxAssetEvent() graph.StxAssetEventResolver { return stxEventResolver{r} }
func (r *Resolver) FungibleTokenAssetEvent() graph.FungibleTokenAssetEventResolver {
	return ftEventResolver{r}
}
func (r *Resolver) NonFungibleTokenAssetEvent() graph.NonFungibleTokenAssetEventResolver {
	return nftEventResolver{r}
}

// contractLogEventResolver serves SmartContractLogEvent.
type contractLogEventResolver struct{ *Resolver }

func (r contractLogEventResolver) Transaction(ctx context.Context, e *db.ContractLog) (*db.Tx, error) {
	return eventTx(ctx, e)
}

type stxLockEventResolver struct{ *Resolver }

func (r stxLockEventResolver) Transaction(ctx context.Context, e *db.StxLockEvent) (*db.Tx, error) {
	return eventTx(ctx, e)
}

type stxEventResolver struct{ *Resolver }

func (r stxEventResolver) Transaction(ctx context.Context, e *db.StxEvent) (*db.Tx, error) {
	return eventTx(ctx, e)
}

// ftEventResolver serves FungibleTokenAssetEvent.
type ftEventResolver struct{ *Resolver }

func (r ftEventResolver) Transaction(ctx context.Context, e *db.FtEvent) (*db.Tx, error) {
	return eventTx(ctx, e)
}

// nftEventResolver serves NonFungibleTokenAssetEvent.
type nftEventResolver struct{ *Resolver }

func (r nftEventResolver) Transaction(ctx context.Context, e *db.NftEvent) (*db.Tx, error) {
	return eventTx(ctx, e)
}
