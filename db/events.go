package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EventType names the five event kinds as the reference API does.
type EventType string

// The event kinds, each stored in its own table.
const (
	EventSmartContractLog      EventType = "smart_contract_log"
	EventStxLock               EventType = "stx_lock"
	EventStxAsset              EventType = "stx_asset"
	EventFungibleTokenAsset    EventType = "fungible_token_asset"
	EventNonFungibleTokenAsset EventType = "non_fungible_token_asset"
)

// AllEventTypes lists every kind.
var AllEventTypes = []EventType{EventSmartContractLog, EventStxLock, EventStxAsset, EventFungibleTokenAsset, EventNonFungibleTokenAsset}

// eventOrderDesc is the chain order of events, newest first.
const eventOrderDesc = "block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC"

// EventTypeOf returns the kind of event e.
func EventTypeOf(e Event) EventType {
	switch e.(type) {
	case *ContractLog:
		return EventSmartContractLog
	case *StxLockEvent:
		return EventStxLock
	case *StxEvent:
		return EventStxAsset
	case *FtEvent:
		return EventFungibleTokenAsset
	default:
		return EventNonFungibleTokenAsset
	}
}

// scanEvents runs query (with ?Table standing for each kind's table) over the tables of kinds and
// returns the events of every kind together.
func (s *Store) scanEvents(ctx context.Context, kinds []EventType, query func(table string) (string, []any)) ([]Event, error) {
	var out []Event
	for _, k := range kinds {
		var err error
		switch k {
		case EventSmartContractLog:
			out, err = scanInto[ContractLog](ctx, s, "contract_logs", query, out)
		case EventStxLock:
			out, err = scanInto[StxLockEvent](ctx, s, "stx_lock_events", query, out)
		case EventStxAsset:
			out, err = scanInto[StxEvent](ctx, s, "stx_events", query, out)
		case EventFungibleTokenAsset:
			out, err = scanInto[FtEvent](ctx, s, "ft_events", query, out)
		case EventNonFungibleTokenAsset:
			out, err = scanInto[NftEvent](ctx, s, "nft_events", query, out)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanInto[T any, PT interface {
	*T
	Event
}](ctx context.Context, s *Store, table string, query func(string) (string, []any), out []Event) ([]Event, error) {
	q, args := query(table)
	var rows []*T
	if err := s.scanPrepared(ctx, numbered(q), &rows, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, PT(r))
	}
	return out, nil
}

// sortDesc orders events newest first, as every listing does.
func sortDesc(es []Event) {
	slices.SortStableFunc(es, func(a, b Event) int {
		x, y := a.Position(), b.Position()
		return cmp.Or(cmp.Compare(y.BlockHeight, x.BlockHeight), cmp.Compare(y.MicroblockSequence, x.MicroblockSequence),
			cmp.Compare(y.TxIndex, x.TxIndex), cmp.Compare(y.EventIndex, x.EventIndex))
	})
}

// EventWindow selects, per transaction, the events whose event_index is in [Offset, Offset+Limit)
// (the reference's per-transaction window of tx/multiple).
type EventWindow struct {
	Offset int32
	Limit  int32
}

// EventsOfTxs returns the microblock-canonical events of these transaction rows within the
// window, in event_index order per transaction, aligned with txs: one statement whatever the
// number of rows and kinds, the primary key of each kind of txs[i]'s events (Tx.KindsOfEvents)
// probed once for it; cols says which of their columns are read. A row names its transaction by its
// place in txs instead of repeating the three hashes, which PostgreSQL would otherwise write out
// and the driver decode and allocate for every event; the events share their row's hashes.
func (s *Store) EventsOfTxs(ctx context.Context, txs []*Tx, w EventWindow, cols EventColumns) ([][]Event, error) {
	keys, err := packKeys(txs, func(t *Tx) []byte { return t.TxID }, func(t *Tx) []byte { return t.IndexBlockHash },
		func(t *Tx) []byte { return t.MicroblockHash })
	if err != nil {
		return nil, err
	}
	ks := make([]byte, len(txs))
	var among EventKinds
	for i, t := range txs {
		k := t.KindsOfEvents()
		ks[i] = byte(k)
		among |= k & allEventKinds
	}
	out := make([][]Event, len(txs))
	if among == 0 {
		return out, nil
	}
	rows, err := s.queryPrepared(ctx, txEventsSQL[txEventsShape{cols, among}], keys[0], keys[1], keys[2], ks,
		w.Offset, int64(w.Offset)+int64(w.Limit))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var r eventRow
	var n int64
	dest := r.destByOrdinal(&n, cols) // scanned into again for every row, reset in between
	for rows.Next() {
		r = eventRow{}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		if n < 1 || n > int64(len(txs)) {
			return nil, fmt.Errorf("db: an event of transaction %d of %d", n, len(txs))
		}
		t := txs[n-1]
		r.TxID, r.IndexBlockHash, r.MicroblockHash = t.TxID, t.IndexBlockHash, t.MicroblockHash
		out[n-1] = append(out[n-1], r.event())
	}
	return out, rows.Err()
}

// txEventsSQL reads the events of transactions ($1, $2, $3: their tx_id, index_block_hash and
// microblock_hash, packed by packKeys) whose event_index is in [$5, $6), by the primary key of
// each table whose kind is in the transaction's kinds ($4, one EventKinds byte each): a branch
// whose kind is not is cut before its probe (a condition on the transaction alone, a one-time
// filter). Each row names its transaction by its ordinal (k.n). There is one text for each set
// of columns and each set of kinds the batch's transactions have among them, holding a branch
// for those kinds only: PostgreSQL sets up every branch of the union, and runs its one-time
// filter, for each transaction.
var txEventsSQL = func() map[txEventsShape]string {
	out := map[txEventsShape]string{}
	for _, cols := range []EventColumns{AllEventColumns, EventPositionColumns} {
		for _, kinds := range allEventKinds.subsets() {
			out[txEventsShape{cols, kinds}] = txEventsQuery(cols, kinds)
		}
	}
	return out
}()

// txEventsShape names a text of txEventsSQL.
type txEventsShape struct {
	cols  EventColumns
	kinds EventKinds
}

// allEventKinds is the set of every kind.
var allEventKinds = KindsOf(AllEventTypes)

// subsets are the sets of kinds in k, but the empty one: the sets a statement with one text
// per set of kinds is written for.
func (k EventKinds) subsets() []EventKinds {
	var out []EventKinds
	for s := EventKinds(1); s != 0 && s <= k; s++ {
		if s&^k == 0 {
			out = append(out, s)
		}
	}
	return out
}

func txEventsQuery(cols EventColumns, kinds EventKinds) string {
	var branches []string
	for _, t := range eventTables {
		if !kinds.Has(t.kind) {
			continue
		}
		branches = append(branches, t.renderSelect(cols, "k.n, "+eventPlaceSelect)+` WHERE (k.kinds & `+strconv.Itoa(int(KindsOf([]EventType{t.kind})))+`) <> 0
		AND e.tx_id = k.tx_id AND e.index_block_hash = k.index_block_hash AND e.microblock_hash = k.microblock_hash
		AND e.microblock_canonical AND e.event_index >= w.lo AND e.event_index < w.hi`)
	}
	lateral := strings.Join(branches, " UNION ALL ")
	if len(branches) == 1 {
		// A lone branch would be pulled up into a join of the table with the keys, which
		// PostgreSQL may run as a hash join over all of the table's rows; OFFSET 0 keeps it a
		// probe per transaction, as the union of several is.
		lateral += " OFFSET 0"
	}
	return `SELECT e.* FROM (SELECT ` + packedKey("$1::bytea", "g.i") + ` AS tx_id, ` + packedKey("$2::bytea", "g.i") + ` AS index_block_hash,
		` + packedKey("$3::bytea", "g.i") + ` AS microblock_hash, get_byte($4::bytea, g.i) AS kinds, g.i + 1 AS n
		FROM generate_series(0, length($4::bytea) - 1) AS g(i)) k
	CROSS JOIN (SELECT $5::bigint AS lo, $6::bigint AS hi) w
	CROSS JOIN LATERAL (` + lateral + `) e
	ORDER BY e.event_index`
}

// EventFilter selects the events of one transaction (TxID) or involving one principal.
type EventFilter struct {
	TxID      []byte
	Principal string
	Types     []EventType
	Limit     int
	Offset    int
}

// principalColumns are the columns that tie an event of each kind to a principal.
var principalColumns = map[EventType][]string{
	EventSmartContractLog:      {"contract_identifier"},
	EventStxLock:               {"locked_address"},
	EventStxAsset:              {"sender", "recipient"},
	EventFungibleTokenAsset:    {"sender", "recipient"},
	EventNonFungibleTokenAsset: {"sender", "recipient"},
}

// Events returns one page of canonical events, newest first. A transaction's events of the kinds
// asked for are read in one statement (txEventsPage), a principal's events of every kind by
// position (principalEvents). Otherwise each kind and each of its principal's columns is read
// along its own ordered index up to offset+limit rows and the results merged.
func (s *Store) Events(ctx context.Context, f EventFilter) ([]Event, error) {
	if f.TxID != nil {
		return s.txEventsPage(ctx, f)
	}
	if f.Principal != "" && allEventTypes(f.Types) {
		return s.principalEvents(ctx, f)
	}
	n := f.Offset + f.Limit
	var out []Event
	for _, k := range f.Types {
		es, err := s.scanEvents(ctx, []EventType{k}, func(table string) (string, []any) {
			var q string
			var args []any
			for i, col := range principalColumns[k] {
				if i > 0 {
					q += " UNION "
				}
				q += fmt.Sprintf(`(SELECT * FROM %s WHERE %s = ? AND canonical AND microblock_canonical ORDER BY %s LIMIT ?)`,
					table, col, eventOrderDesc)
				args = append(args, f.Principal, n)
			}
			return q, args
		})
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	sortDesc(out)
	return window(out, f.Offset, f.Limit), nil
}

// txEventsPage is one page of a transaction's canonical events of the kinds f.Types, newest
// first: one statement whose branches each read a kind's table along its tx_id index, up to
// offset+limit rows.
func (s *Store) txEventsPage(ctx context.Context, f EventFilter) ([]Event, error) {
	var branches []string
	for _, t := range eventTables {
		if slices.Contains(f.Types, t.kind) {
			branches = append(branches, "("+t.selectAll()+" WHERE e.tx_id = $1 AND e.canonical AND e.microblock_canonical ORDER BY "+
				eventOrderDesc+" LIMIT $2)")
		}
	}
	if len(branches) == 0 {
		return nil, nil
	}
	q := "SELECT * FROM (" + strings.Join(branches, " UNION ALL ") + ") u ORDER BY " + eventOrderDesc + " LIMIT $3 OFFSET $4"
	return s.scanUnionEvents(ctx, AllEventColumns, q, f.TxID, f.Offset+f.Limit, f.Limit, f.Offset)
}

func window[T any](xs []T, offset, limit int) []T {
	if offset >= len(xs) {
		return nil
	}
	return xs[offset:min(len(xs), offset+limit)]
}

// ContractEvents returns one page of a contract's canonical print events, newest first; the
// unconfirmed microblock ones above the tip only with unanchored. A page near the newest events
// walks the contract's index past the offset; a deeper one reads the anchored events by their
// position among the contract's (principal_event_positions.log_seq), so that it costs the same at
// any offset.
func (s *Store) ContractEvents(ctx context.Context, contractID string, limit, offset int, unanchored bool) ([]*ContractLog, error) {
	q := contractEventsSQL[unanchored]
	if offset < contractEventsWalk {
		q = contractEventsWalkSQL[unanchored]
	}
	var logs []*ContractLog
	err := s.scanPrepared(ctx, q, &logs, contractID, limit, offset)
	return logs, err
}

// contractEventsWalk is the offset below which a page walks the contract's index: each row read
// by position costs a position and a primary-key probe, three times what a row of the walk costs,
// and on the benchmark chain the two cost the same near offset 400.
const contractEventsWalk = 256

// contractLogsOf selects a contract's ($1) canonical print events.
const contractLogsOf = `SELECT * FROM contract_logs WHERE contract_identifier = $1::text AND canonical AND microblock_canonical`

// contractEventsWalkSQL reads a page of a contract's print events along its index, skipping the
// offset. $1 is the contract, $2 the limit and $3 the offset.
var contractEventsWalkSQL = map[bool]string{
	false: contractLogsOf + " AND block_height <= (SELECT block_height FROM chain_tip WHERE id)" + contractEventsWalkOrder,
	true:  contractLogsOf + contractEventsWalkOrder,
}

const contractEventsWalkOrder = ` ORDER BY ` + eventOrderDesc + ` LIMIT $2::bigint OFFSET $3::bigint`

// contractEventsSQL reads a page of a contract's print events: its unconfirmed microblock ones
// above the tip (u, few; none without unanchored) first, then its anchored ones by position, the
// log_seq range below the contract's log count minus the offset. $1 is the contract, $2 the
// limit and $3 the offset.
var contractEventsSQL = map[bool]string{false: contractEventsQuery(false), true: contractEventsQuery(true)}

func contractEventsQuery(unanchored bool) string {
	if !unanchored {
		// The positions alone: without the unconfirmed part's branch, the chain tip and the
		// union, as anchoredPageSQL reads a principal's transactions (the range's ORDER BY
		// keeps it a subquery whose bounds are index conditions, there too).
		return `WITH c AS MATERIALIZED (SELECT coalesce((SELECT log_count FROM principal_event_counts WHERE principal = $1::text), 0) AS n)
	SELECT e.* FROM c CROSS JOIN LATERAL (SELECT tx_id, index_block_hash, microblock_hash, event_index FROM principal_event_positions
		WHERE principal = $1::text AND log_seq IS NOT NULL
		AND ` + positionRangeSQL("log_seq", "") + `
		ORDER BY log_seq DESC) p
	JOIN contract_logs e USING (tx_id, index_block_hash, microblock_hash, event_index)
	ORDER BY ` + eventOrderDesc + ` LIMIT $2::bigint`
	}
	u := contractLogsOf + ` AND block_height ` + aboveTipSQL
	return `WITH ` + tipSQL + `, u AS MATERIALIZED (` + u + `),
	c AS MATERIALIZED (SELECT coalesce((SELECT log_count FROM principal_event_counts WHERE principal = $1::text), 0) AS n,
		(SELECT count(*) FROM u) AS un)
	SELECT * FROM (
		(SELECT * FROM u ORDER BY ` + eventOrderDesc + ` LIMIT $2::bigint OFFSET $3::bigint)
		UNION ALL
		(SELECT e.* FROM c CROSS JOIN LATERAL (SELECT tx_id, index_block_hash, microblock_hash, event_index FROM principal_event_positions
			WHERE principal = $1::text AND log_seq IS NOT NULL
			AND ` + positionRangeSQL("log_seq", "c.un") + `
			ORDER BY log_seq DESC) p
			JOIN contract_logs e USING (tx_id, index_block_hash, microblock_hash, event_index))
	) page ORDER BY ` + eventOrderDesc + ` LIMIT $2::bigint`
}

// Transfers are the asset events of some transactions that involve one principal.
type Transfers struct {
	Stx []*StxEvent
	Ft  []*FtEvent
	Nft []*NftEvent
}

// PrincipalTransfers returns the STX, FT and NFT events of these transaction rows in which the
// principal sends or receives, newest event first, in one prepared statement
// (principalTransfersSQL).
func (s *Store) PrincipalTransfers(ctx context.Context, principal string, txs []TxPosition) (*Transfers, error) {
	t := new(Transfers)
	if len(txs) == 0 {
		return t, nil
	}
	keys := make(map[TxKey]bool, len(txs))
	lo, hi := txs[0], txs[0]
	var kinds EventKinds
	for _, tx := range txs {
		keys[tx.Key] = true
		if tx.before(lo) {
			lo = tx
		}
		if hi.before(tx) {
			hi = tx
		}
		kinds |= tx.Kinds & transferKinds
	}
	if kinds == 0 {
		return t, nil
	}
	es, err := s.scanUnionEvents(ctx, AllEventColumns, principalTransfersSQL[kinds], principal,
		lo.BlockHeight, lo.MicroblockSequence, lo.TxIndex, hi.BlockHeight, hi.MicroblockSequence, hi.TxIndex)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if !keys[e.Position().TxKey()] {
			continue
		}
		switch e := e.(type) {
		case *StxEvent:
			t.Stx = append(t.Stx, e)
		case *FtEvent:
			t.Ft = append(t.Ft, e)
		case *NftEvent:
			t.Nft = append(t.Nft, e)
		}
	}
	return t, nil
}

// principalTransfersSQL reads the asset events in which the principal ($1) sends or receives of
// the canonical transactions in the span of chain positions from the first of the transactions
// asked for ($2, $3, $4: block height, microblock sequence, index) to the last ($5, $6, $7). It
// walks the principal's own sender and recipient indexes, never the transactions' own events: a
// transaction with thousands of events (a genesis block's mints) costs a page what one with a
// single event does. A page's transactions are consecutive in the principal's history, so every
// event in the span is one of theirs; PrincipalTransfers keeps only those of the transactions
// asked for all the same, in Go, where matching 20 keys costs nothing: matched in the statement,
// the keys cost PostgreSQL over a third of its work (three bytea[] parameters parsed, a hash
// join over the branches). There is one text for each set of the kinds of transfers the
// transactions have events of, walking those kinds' indexes only. Prepared, since planning its
// branches costs PostgreSQL more than running them.
var principalTransfersSQL = func() map[EventKinds]string {
	out := map[EventKinds]string{}
	for _, kinds := range transferKinds.subsets() {
		var branches []string
		for _, t := range eventTables {
			if !kinds.Has(t.kind) {
				continue
			}
			// A transfer to oneself is read once, as the sender's.
			for _, party := range []string{"e.sender = $1::text", "e.recipient = $1::text AND e.sender IS DISTINCT FROM $1::text"} {
				branches = append(branches, t.selectAll()+` WHERE `+party+` AND e.canonical AND e.microblock_canonical
			AND (e.block_height, e.microblock_sequence, e.tx_index) >= ($2::integer, $3::integer, $4::integer)
			AND (e.block_height, e.microblock_sequence, e.tx_index) <= ($5::integer, $6::integer, $7::integer)`)
			}
		}
		out[kinds] = `SELECT e.* FROM (` + strings.Join(branches, " UNION ALL ") + `) e ORDER BY e.event_index DESC`
	}
	return out
}()

// transferKinds are the kinds of events that move an asset between principals.
var transferKinds = KindsOf([]EventType{EventStxAsset, EventFungibleTokenAsset, EventNonFungibleTokenAsset})

// isNoRows reports the "no rows" error that bun returns for an empty scan into a struct.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// allEventTypes reports whether types names every kind.
func allEventTypes(types []EventType) bool {
	for _, k := range AllEventTypes {
		if !slices.Contains(types, k) {
			return false
		}
	}
	return true
}

// principalEventsSQL reads a page of a principal's events, newest first, in one statement: its
// unconfirmed microblock events above the tip (u, few), then its anchored ones by position, the
// range of principal_event_positions below count-offset. Each position probes only its kind's
// table. $1 is the principal, $2 the limit and $3 the offset. The statement is prepared: planning
// its thirteen branches costs PostgreSQL several times what running it does.
var principalEventsSQL = func() string {
	var unanchored []string
	for _, t := range eventTables {
		for _, col := range principalColumns[t.kind] {
			unanchored = append(unanchored, fmt.Sprintf(`%s WHERE e.%s = $1::text AND e.canonical AND e.microblock_canonical
				AND e.block_height %s`, t.selectAll(), col, aboveTipSQL))
		}
	}
	return `WITH ` + tipSQL + `, u AS MATERIALIZED (` + strings.Join(unanchored, " UNION ") + `),
	c AS MATERIALIZED (SELECT coalesce((SELECT event_count FROM principal_event_counts WHERE principal = $1::text), 0) AS n,
		(SELECT count(*) FROM u) AS un),
	` + principalEventPositions("c.un") + `
	(SELECT * FROM u ORDER BY ` + eventOrderDesc + ` LIMIT $2::bigint OFFSET $3::bigint)
	UNION ALL
	` + principalEventsByPosition
}()

// principalEventsAnchoredSQL is principalEventsSQL without the unconfirmed part, which only a tip
// that streams microblocks has (none on a Nakamoto chain): PostgreSQL runs it in about half the
// time, since each of the part's branches costs it at every execution even when the tip's flag
// empties them all. When the tip does stream, it returns one more row, of kind tipStreamsKind,
// and the read runs principalEventsSQL instead.
var principalEventsAnchoredSQL = `WITH ` + tipSQL + `,
	c AS MATERIALIZED (SELECT coalesce((SELECT event_count FROM principal_event_counts WHERE principal = $1::text), 0) AS n),
	` + principalEventPositions("") + `
	(` + principalEventsByPosition + `)
	UNION ALL
	(` + tipStreamsRow + ` WHERE streaming)`

// principalEventPositions is the WITH entry k of a principal's event positions of a page
// (positionRangeSQL, un the unconfirmed events that come first, "" when none do). It reads the
// columns the primary key includes, so the range is read from the index alone: the heap holds a
// principal's positions scattered over the blocks they were appended in.
func principalEventPositions(un string) string {
	return `k AS (SELECT p.* FROM c CROSS JOIN LATERAL (SELECT kind, tx_id, index_block_hash, microblock_hash, event_index FROM principal_event_positions
		WHERE principal = $1::text AND ` + positionRangeSQL("seq", un) + `
		ORDER BY seq DESC) p)`
}

// principalEventsByPosition reads the events at the positions of k, each from its kind's table.
var principalEventsByPosition = func() string {
	var byPosition []string
	for i, t := range eventTables {
		byPosition = append(byPosition, fmt.Sprintf(`%s WHERE k.kind = %d AND e.tx_id = k.tx_id AND e.index_block_hash = k.index_block_hash
			AND e.microblock_hash = k.microblock_hash AND e.event_index = k.event_index`, t.selectAll(), i))
	}
	return `(SELECT e.* FROM k CROSS JOIN LATERAL (` + strings.Join(byPosition, " UNION ALL ") + `) e)`
}()

// principalEvents returns one page of a principal's events of every kind, newest first; its
// cost is the page's, whatever the offset and the principal's history.
func (s *Store) principalEvents(ctx context.Context, f EventFilter) ([]Event, error) {
	es, err := s.scanUnionEvents(ctx, AllEventColumns, principalEventsAnchoredSQL, f.Principal, f.Limit, f.Offset)
	if errors.Is(err, errTipStreams) {
		es, err = s.scanUnionEvents(ctx, AllEventColumns, principalEventsSQL, f.Principal, f.Limit, f.Offset)
	}
	if err != nil {
		return nil, err
	}
	sortDesc(es)
	return es[:min(len(es), f.Limit)], nil
}
