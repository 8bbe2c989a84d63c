package db

import (
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

// unionEvents renders the UNION ALL over every kind's table (aliased e), each branch filtered by
// where, which may refer to columns of enclosing (LATERAL) relations but takes no arguments.
func unionEvents(where string) string {
	branches := make([]string, len(eventTables))
	for i, t := range eventTables {
		branches[i] = t.selectAll() + " WHERE " + where
	}
	return strings.Join(branches, " UNION ALL ")
}

// eventSelects holds every table's selectAll, rendered once.
var eventSelects = func() map[string]string {
	out := make(map[string]string, len(eventTables))
	for _, t := range eventTables {
		out[t.table] = t.renderSelect()
	}
	return out
}()

// selectAll is the SELECT … FROM of one union branch over t's table (aliased e).
func (t eventTable) selectAll() string { return eventSelects[t.table] }

func (t eventTable) renderSelect() string {
	var b strings.Builder
	b.WriteString("SELECT '" + string(t.kind) + "' AS kind, e.tx_id, e.index_block_hash, e.microblock_hash, e.event_index, " +
		"e.tx_index, e.block_height, e.microblock_sequence, e.canonical, e.microblock_canonical")
	for _, c := range eventColumns {
		if slices.Contains(t.columns, c.name) {
			b.WriteString(", e." + c.name)
		} else {
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
