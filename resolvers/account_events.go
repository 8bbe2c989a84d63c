package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// accountEventList is an account's events in chain order; its cursors carry an event's position.
var accountEventList = list{tag: "accountevent", ints: 4}

func eventCursor(e db.Event) db.Cursor {
	p := e.Position()
	return db.Cursor{Set: true, Key: [4]int64{int64(p.BlockHeight), int64(p.MicroblockSequence), int64(p.TxIndex), int64(p.EventIndex)}}
}

// Events are the account's events of the given kinds (all when none), newest first, one
// batched statement per level for every account of the request.
func (r accountResolver) Events(ctx context.Context, a *db.Account, first *int32, after *string, last *int32, before *string, types []db.EventType) (*graph.AccountEventConnection, error) {
	ks, n, err := r.keyset(accountEventList, relayArgs{first: first, after: after, last: last, before: before})
	if err != nil {
		return nil, err
	}
	if len(types) == 0 {
		types = db.AllEventTypes
	}
	key := loaders.EventsPage{Page: loaders.Page{Parent: a.Principal, Keyset: ks}, Kinds: db.KindsOf(types)}
	rows, err := loaders.For(ctx).PrincipalEvents.Load(ctx, key)()
	if err != nil {
		return nil, err
	}
	p := paginate(ctx, accountEventList, rows, ks, n, eventCursor)
	return &graph.AccountEventConnection{Nodes: p.nodes, PageInfo: p.info, Edges: edges(p, func(c string, e db.Event) *graph.AccountEventEdge {
		return &graph.AccountEventEdge{Cursor: c, Node: e}
	})}, nil
}
