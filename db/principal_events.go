package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// EventKinds is a set of event kinds. It is comparable, so that loaders can batch on it.
type EventKinds uint8

// KindsOf returns the set of the kinds listed.
func KindsOf(types []EventType) EventKinds {
	var k EventKinds
	for _, t := range types {
		if i := slices.Index(AllEventTypes, t); i >= 0 {
			k |= 1 << i
		}
	}
	return k
}

// Has reports whether t is in the set.
func (k EventKinds) Has(t EventType) bool {
	i := slices.Index(AllEventTypes, t)
	return i >= 0 && k&(1<<i) != 0
}

// PrincipalEvent is one event of a principal's event list.
type PrincipalEvent struct {
	Principal string
	Event     Event
}

type principalEventRow struct {
	Principal string `bun:"principal"`
	eventRow  `bun:"extend"`
}

// eventKeyColumns are the chain order of events, the key of event lists.
var eventKeyColumns = []string{"block_height", "microblock_sequence", "tx_index", "event_index"}

// EventsOfPrincipals returns, for each principal, one page of its canonical events of the given
// kinds, newest first: asset events it sends or receives, STX locks of its address and, for a
// contract, its print events. Each kind and principal column is one branch read along its
// partial (column, block_height DESC, …) index up to the page size, and the branches are merged,
// so a page costs the same whatever the principal's history; one statement serves every
// principal through a LATERAL join.
func (s *Store) EventsOfPrincipals(ctx context.Context, principals []string, kinds EventKinds, k Keyset) ([]*PrincipalEvent, error) {
	where, keyArgs, order := k.clause(eventKeyColumns, 4, true)
	var branches []string
	var args []any
	for _, t := range eventTables {
		if !kinds.Has(t.kind) {
			continue
		}
		cols := principalColumns[t.kind]
		for i, col := range cols {
			match := "e." + col + " = k.principal"
			if i > 0 {
				// An event the principal both sends and receives is listed once, by its sender branch.
				match += " AND e." + cols[0] + " IS DISTINCT FROM k.principal"
			}
			branches = append(branches, fmt.Sprintf("(%s WHERE %s AND e.canonical AND e.microblock_canonical AND %s ORDER BY %s LIMIT ?)",
				t.selectAll(), match, where, order))
			args = append(append(args, keyArgs...), k.Limit)
		}
	}
	if len(branches) == 0 {
		return nil, nil
	}
	var rows []*principalEventRow
	err := pagePerKey{Select: "k.principal, e.*", Keys: textArray(principals), Type: "text", Key: "principal",
		Inner: "SELECT * FROM (" + strings.Join(branches, " UNION ALL ") + ") u ORDER BY " + order,
		Args:  args, Limit: k.Limit, As: "e"}.scan(ctx, s, &rows)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	out := make([]*PrincipalEvent, len(rows))
	for i, r := range rows {
		out[i] = &PrincipalEvent{Principal: r.Principal, Event: r.event()}
	}
	return out, nil
}
