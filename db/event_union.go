package db

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// The five event tables read as one: a UNION ALL whose branches select the position columns, a
// kind discriminator and every kind's own columns (NULL where a kind has none), so a read over
// several kinds is one statement.

// eventColumns are the kind-specific columns of the union, with their SQL types.
var eventColumns = []struct{ name, sqlType string }{
	{"asset_event_type_id", "smallint"}, {"asset_identifier", "text"}, {"sender", "text"},
	{"recipient", "text"}, {"amount", "numeric"}, {"memo", "bytea"}, {"value", "bytea"},
	{"contract_identifier", "text"}, {"topic", "text"}, {"locked_amount", "numeric"},
	{"unlock_height", "integer"}, {"locked_address", "text"}, {"contract_name", "text"},
}

// eventTable is one kind's table and the columns of eventColumns it has.
type eventTable struct {
	kind    EventType
	table   string
	columns []string
}

// eventTables lists every kind's table.
var eventTables = []eventTable{
	{EventSmartContractLog, "contract_logs", []string{"contract_identifier", "topic", "value"}},
	{EventStxLock, "stx_lock_events", []string{"locked_amount", "unlock_height", "locked_address", "contract_name"}},
	{EventStxAsset, "stx_events", []string{"asset_event_type_id", "sender", "recipient", "amount", "memo"}},
	{EventFungibleTokenAsset, "ft_events", []string{"asset_event_type_id", "asset_identifier", "sender", "recipient", "amount"}},
	{EventNonFungibleTokenAsset, "nft_events", []string{"asset_event_type_id", "asset_identifier", "sender", "recipient", "value"}},
}

// EventColumns are the columns an event read fetches.
type EventColumns uint8

const (
	// AllEventColumns reads every column of each event.
	AllEventColumns EventColumns = iota
	// EventPositionColumns reads each event's kind and position alone: all that its type, index,
	// transaction and order need. The kind's own columns (values, amounts, principals) are left
	// unread, and the events come back with their zero values.
	EventPositionColumns
)

// unionEvents renders the UNION ALL over every kind's table (aliased e), each branch filtered by
// where, which may refer to columns of enclosing (LATERAL) relations but takes no arguments.
func unionEvents(where string) string {
	branches := make([]string, len(eventTables))
	for i, t := range eventTables {
		branches[i] = t.selectAll() + " WHERE " + where
	}
	return strings.Join(branches, " UNION ALL ")
}

// eventSelects holds every table's SELECT … FROM of all its columns, rendered once.
var eventSelects = func() map[string]string {
	out := make(map[string]string, len(eventTables))
	for _, t := range eventTables {
		out[t.table] = t.renderSelect(AllEventColumns, eventPositionSelect)
	}
	return out
}()

// selectAll is the SELECT … FROM of one union branch over t's table (aliased e).
func (t eventTable) selectAll() string { return eventSelects[t.table] }

// eventPositionSelect is the position columns every union branch selects after the kind: the
// transaction's key, then the event's place (eventPlaceSelect).
const eventPositionSelect = "e.tx_id, e.index_block_hash, e.microblock_hash, " + eventPlaceSelect

// eventPlaceSelect is the position columns but the transaction's key.
const eventPlaceSelect = "e.event_index, e.tx_index, e.block_height, e.microblock_sequence, e.canonical, e.microblock_canonical"

// renderSelect renders the SELECT … FROM of one union branch over t's table: the kind, the
// position columns given, then cols.
func (t eventTable) renderSelect(cols EventColumns, position string) string {
	var b strings.Builder
	b.WriteString("SELECT '" + string(t.kind) + "' AS kind, " + position)
	for _, c := range eventColumns {
		switch {
		case cols == EventPositionColumns:
		case slices.Contains(t.columns, c.name):
			b.WriteString(", e." + c.name)
		default:
			b.WriteString(", NULL::" + c.sqlType + " AS " + c.name)
		}
	}
	b.WriteString(" FROM " + t.table + " e")
	return b.String()
}

// eventRow is one row of unionEvents.
type eventRow struct {
	Kind          EventType `bun:"kind"`
	EventPosition `bun:"extend"`

	AssetEventTypeID   *int16  `bun:"asset_event_type_id"`
	AssetIdentifier    *string `bun:"asset_identifier"`
	Sender             *string `bun:"sender"`
	Recipient          *string `bun:"recipient"`
	Amount             *string `bun:"amount"`
	Memo               []byte  `bun:"memo"`
	Value              []byte  `bun:"value"`
	ContractIdentifier *string `bun:"contract_identifier"`
	Topic              *string `bun:"topic"`
	LockedAmount       *string `bun:"locked_amount"`
	UnlockHeight       *int32  `bun:"unlock_height"`
	LockedAddress      *string `bun:"locked_address"`
	ContractName       *string `bun:"contract_name"`
}

// dest is the scan destinations of a row of the union's cols, in their order.
func (r *eventRow) dest(cols EventColumns) []any {
	p := &r.EventPosition
	d := make([]any, 0, 10+len(eventColumnDests))
	return r.placeAndColumns(append(d, kindColumn{&r.Kind}, &p.TxID, &p.IndexBlockHash, &p.MicroblockHash), cols)
}

// destByOrdinal is the scan destinations of a row that names its transaction by an ordinal
// (scanned into n) in place of its key.
func (r *eventRow) destByOrdinal(n *int64, cols EventColumns) []any {
	d := make([]any, 0, 8+len(eventColumnDests))
	return r.placeAndColumns(append(d, kindColumn{&r.Kind}, n), cols)
}

// placeAndColumns appends the destinations of the event's place and of cols to d.
func (r *eventRow) placeAndColumns(d []any, cols EventColumns) []any {
	p := &r.EventPosition
	d = append(d, int32Column{&p.EventIndex}, int32Column{&p.TxIndex}, int32Column{&p.BlockHeight},
		int32Column{&p.MicroblockSequence}, &p.Canonical, &p.MicroblockCanonical)
	if cols == EventPositionColumns {
		return d
	}
	for _, dest := range eventColumnDests {
		d = append(d, dest(r))
	}
	return d
}

// eventColumnDests are the scan destinations of the kinds' own columns, in eventColumns' order:
// matched to the columns' names once, not on every row.
var eventColumnDests = func() []func(*eventRow) any {
	byName := map[string]func(*eventRow) any{
		"asset_event_type_id": func(r *eventRow) any { return nullInt16Column{&r.AssetEventTypeID} },
		"asset_identifier":    func(r *eventRow) any { return nullStringColumn{&r.AssetIdentifier} },
		"sender":              func(r *eventRow) any { return nullStringColumn{&r.Sender} },
		"recipient":           func(r *eventRow) any { return nullStringColumn{&r.Recipient} },
		"amount":              func(r *eventRow) any { return nullStringColumn{&r.Amount} },
		"memo":                func(r *eventRow) any { return &r.Memo },
		"value":               func(r *eventRow) any { return &r.Value },
		"contract_identifier": func(r *eventRow) any { return nullStringColumn{&r.ContractIdentifier} },
		"topic":               func(r *eventRow) any { return nullStringColumn{&r.Topic} },
		"locked_amount":       func(r *eventRow) any { return nullStringColumn{&r.LockedAmount} },
		"unlock_height":       func(r *eventRow) any { return nullInt32Column{&r.UnlockHeight} },
		"locked_address":      func(r *eventRow) any { return nullStringColumn{&r.LockedAddress} },
		"contract_name":       func(r *eventRow) any { return nullStringColumn{&r.ContractName} },
	}
	out := make([]func(*eventRow) any, len(eventColumns))
	for i, c := range eventColumns {
		if out[i] = byName[c.name]; out[i] == nil {
			panic("db: no scan destination for event column " + c.name)
		}
	}
	return out
}()

// scanUnionEvents runs query, whose rows are the union's cols, as a prepared statement and returns
// them as events, in order.
func (s *Store) scanUnionEvents(ctx context.Context, cols EventColumns, query string, args ...any) ([]Event, error) {
	rows, err := s.queryPrepared(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []Event
	var r eventRow
	dest := r.dest(cols) // scanned into again for every row, reset in between
	for rows.Next() {
		r = eventRow{}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if r.Kind == tipStreamsKind {
			return nil, errTipStreams
		}
		es = append(es, r.event())
	}
	return es, rows.Err()
}

// tipStreamsKind is the kind of the row a read of anchored events alone returns when the chain
// tip streams microblocks, whose unconfirmed events it would miss (principalEventsAnchoredSQL).
const tipStreamsKind EventType = "tip_streams"

// errTipStreams is what scanUnionEvents returns for a read that met a tipStreamsKind row.
var errTipStreams = errors.New("db: the chain tip streams microblocks")

// tipStreamsRow selects a row of the union's columns of kind tipStreamsKind (FROM tip).
var tipStreamsRow = func() string {
	var b strings.Builder
	b.WriteString("SELECT '" + string(tipStreamsKind) + "' AS kind, ''::bytea AS tx_id, ''::bytea AS index_block_hash, ''::bytea AS microblock_hash, " +
		"0 AS event_index, 0 AS tx_index, 0 AS block_height, 0 AS microblock_sequence, false AS canonical, false AS microblock_canonical")
	for _, c := range eventColumns {
		b.WriteString(", NULL::" + c.sqlType + " AS " + c.name)
	}
	b.WriteString(" FROM tip")
	return b.String()
}()

// event returns the row as the model of its kind, as a scan of the kind's own table would.
func (r *eventRow) event() Event {
	switch r.Kind {
	case EventSmartContractLog:
		return &ContractLog{EventPosition: r.EventPosition, ContractIdentifier: deref(r.ContractIdentifier), Topic: deref(r.Topic), Value: r.Value}
	case EventStxLock:
		return &StxLockEvent{EventPosition: r.EventPosition, LockedAmount: deref(r.LockedAmount), UnlockHeight: deref(r.UnlockHeight),
			LockedAddress: deref(r.LockedAddress), ContractName: deref(r.ContractName)}
	case EventStxAsset:
		return &StxEvent{EventPosition: r.EventPosition, AssetEventTypeID: deref(r.AssetEventTypeID), Sender: r.Sender, Recipient: r.Recipient,
			Amount: deref(r.Amount), Memo: r.Memo}
	case EventFungibleTokenAsset:
		return &FtEvent{EventPosition: r.EventPosition, AssetEventTypeID: deref(r.AssetEventTypeID), AssetIdentifier: deref(r.AssetIdentifier),
			Sender: r.Sender, Recipient: r.Recipient, Amount: deref(r.Amount)}
	default:
		return &NftEvent{EventPosition: r.EventPosition, AssetEventTypeID: deref(r.AssetEventTypeID), AssetIdentifier: deref(r.AssetIdentifier),
			Sender: r.Sender, Recipient: r.Recipient, Value: r.Value}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
