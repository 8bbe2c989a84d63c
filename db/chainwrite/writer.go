// Package chainwrite writes the Stacks chain into PostgreSQL: it applies event-observer
// messages (blocks, microblocks, burn blocks, mempool transactions, the raw request log) in
// one transaction each, keeping the counted totals, positions and token holdings in step with
// the canonical chain. The live observer's writes go as VALUES inserts, a replay's large row
// sets as COPY; both store the same rows. The reads the API serves, and the models and schema
// both sides share, are in package db.
package chainwrite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// maxNotifyPayload keeps every NOTIFY payload below PostgreSQL's 8,000-byte limit.
const maxNotifyPayload = 7900

// Writer applies one event-observer message. Every method runs inside the single database
// transaction that Store.Ingest opened, so a message is stored entirely or not at all.
type Writer struct {
	tx bun.Tx
	// conn is the transaction's connection, for COPY (see insertRows).
	conn bun.Conn
	// staged are rows to copy, by table and where they go (see insertRows), and stageSeq
	// numbers the inserts that read staging tables.
	staged   map[stagingKey]*staging
	stageSeq int
	// sending, when not nil, delivers the outcome of the writes being sent (see sendAhead).
	sending chan error
	// requestRows are request-log rows as COPY text, not copied yet (see insertRequests).
	requestRows []byte
	// batch holds formatted write statements not sent yet: writes go to the server in one
	// round trip, before the next read and at commit.
	batch []string
	// seesNewRows says a statement in batch reads the chain's rows of blocks it does not name
	// (whether a transaction is mined anywhere), so that it would see a new block's rows copied
	// ahead of it (see toTable).
	seesNewRows bool
	// ReceivedAt is when the message arrived; it stamps mempool receipt times and microblock
	// receive times so that a replay reproduces them. A replay applying several messages in
	// one transaction sets it before each.
	ReceivedAt time.Time
	// lastRequestID is the highest id in the raw request log, read under the chain tip lock and
	// advanced by LogRequest; loggedIDs says this transaction logged it, so that the id sequence
	// must be moved past it at commit.
	lastRequestID int64
	loggedIDs     bool
	// requests are replayed request-log rows and totals the canonical blocks whose rows
	// principal_stx_totals does not count yet. Both are written at the next flush, in one COPY
	// (see insertRequests) and one statement rather than one per message: nothing reads them
	// during ingestion, and every change to which rows count first flushes (see
	// restoreOrphanedChain).
	requests []*db.EventObserverRequest
	totals   [][]byte
	// burnBlocks are burn blocks held back to be written together (see ApplyBurnBlock).
	burnBlocks []*BurnBlockData
	// state is the chain state after the writes applied so far, when a block applied in this
	// transaction determined it; the next block can then often be applied without reading it.
	state *chainState
	// totalsDeferred says an import into an empty chain recomputes the totals at its end (see
	// DeferUpkeep), so that nothing keeps them meanwhile.
	totalsDeferred bool
}

// IngestOptions tune one message's transaction.
type IngestOptions struct {
	// Relaxed commits without waiting for the WAL flush. Only for replays, which can resume
	// from the request log after a crash; the live observer must not acknowledge a message
	// that a crash could still lose.
	Relaxed bool
}

// Store writes the chain into a db.Store.
type Store struct {
	db  *db.Store
	lz4 struct { // whether the server can compress TOAST values with lz4
		once sync.Once
		ok   bool
	}
}

// NewStore returns the writer of store's chain.
func NewStore(store *db.Store) *Store { return &Store{db: store} }

// relaxedSettings are the replay-only settings of an ingest transaction. lz4 compresses the
// large payloads of the request log several times faster than the default pglz (a tenth of a
// replay's database time), where the server was built with it.
func (s *Store) relaxedSettings(ctx context.Context) string {
	s.lz4.once.Do(func() {
		err := s.db.DB.NewRaw("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'").Scan(ctx, &s.lz4.ok)
		if err != nil {
			s.lz4.ok = false
		}
	})
	if s.lz4.ok {
		return "SET LOCAL synchronous_commit = off; SET LOCAL default_toast_compression = lz4; "
	}
	return "SET LOCAL synchronous_commit = off; "
}

// Ingest runs fn in one transaction that first locks the chain tip row, so that messages
// arriving on the observer's two queues never interleave their writes to the chain state.
// fn may apply one message (the live observer) or several (a replay, which amortises the
// transaction's round trips over them); either way they are stored entirely or not at all.
func (s *Store) Ingest(ctx context.Context, receivedAt time.Time, opts IngestOptions, fn func(context.Context, *Writer) error) error {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		lock := "SELECT (SELECT coalesce(max(id), 0) FROM event_observer_requests), totals_deferred FROM chain_tip FOR UPDATE"
		if opts.Relaxed {
			lock = s.relaxedSettings(ctx) + lock
		}
		w := &Writer{tx: tx, conn: conn, ReceivedAt: receivedAt}
		// No parameters: one simple-protocol round trip for both statements.
		if err := tx.Tx.QueryRowContext(ctx, lock).Scan(&w.lastRequestID, &w.totalsDeferred); err != nil {
			return err
		}
		if err := fn(ctx, w); err != nil {
			// The connection must be idle before the rollback; the send's own error is moot.
			w.wait() //nolint:errcheck
			return err
		}
		if w.loggedIDs {
			// Past the replayed ids, so that the live observer's next row does not collide. In a DO
			// block, as a queued write returns no rows (see send).
			w.add(fmt.Sprintf(`DO $$BEGIN PERFORM setval(pg_get_serial_sequence('event_observer_requests', 'id'),
				GREATEST(%d, (SELECT last_value FROM event_observer_requests_id_seq))); END$$`, w.lastRequestID))
		}
		return w.flush(ctx)
	})
}

// LogRequest records a message in the raw request log. With id set (a replayed log row) it
// keeps that id and reports false when the log already holds that id or a later one, meaning
// the message was applied before and must be skipped: a replay run again skips the prefix it
// applied, and an id repeated in a log (as the reference's logs have) is applied once. That
// check needs no round trip because every writer of the log holds the chain tip lock and
// replayed ids ascend (Ingester.Replay fails on a log whose ids do not). An id below one this
// transaction logged is therefore an error, not a skip: it cannot have been applied before,
// and skipping it would lose the message.
func (w *Writer) LogRequest(ctx context.Context, id *int64, path string, payload json.RawMessage) (bool, error) {
	row := &db.EventObserverRequest{ReceiveTimestamp: w.ReceivedAt, EventPath: path, Payload: payload}
	if id == nil {
		w.insert(w.tx.NewInsert().Model(row).ExcludeColumn("id"))
		return true, nil
	}
	if w.loggedIDs && *id < w.lastRequestID {
		return false, fmt.Errorf("request log id %d follows id %d: replayed ids must ascend", *id, w.lastRequestID)
	}
	if *id <= w.lastRequestID {
		return false, nil
	}
	row.ID = *id
	w.requests = append(w.requests, row)
	w.lastRequestID, w.loggedIDs = *id, true
	return true, nil
}

// queue adds a write statement to the batch.
func (w *Writer) queue(q interface{ String() string }) { w.add(q.String()) }

// add adds a formatted write statement to the batch, behind the burn blocks held back.
func (w *Writer) add(stmt string) {
	w.queueBurnBlocks()
	w.batch = append(w.batch, stmt)
}

// insert queues an insert without the RETURNING clause bun adds for some models: a queued
// write returns no rows (see send).
func (w *Writer) insert(q *bun.InsertQuery) { w.queue(q.Returning("NULL")) }

// exec queues a raw write statement with bun placeholders.
func (w *Writer) exec(q string, args ...any) { w.queue(w.tx.NewRaw(q, args...)) }

// flush sends the queued writes, the deferred ones included.
func (w *Writer) flush(ctx context.Context) error {
	w.queueDeferred()
	return w.sendQueued(ctx)
}

// sendQueued sends the queued writes, after the ones being sent, and waits for them.
func (w *Writer) sendQueued(ctx context.Context) error {
	if err := w.wait(); err != nil {
		return err
	}
	copies, q := w.takeQueued()
	return w.send(ctx, copies, q)
}

// sendAhead starts sending the queued writes while the caller prepares the next ones, after
// waiting for the ones being sent: it returns their error. A replay applies a block's rows
// while the next block's are formatted.
func (w *Writer) sendAhead(ctx context.Context) error {
	if err := w.wait(); err != nil {
		return err
	}
	copies, q := w.takeQueued()
	if q == "" && len(copies) == 0 {
		return nil
	}
	w.sending = make(chan error, 1)
	go func(done chan<- error) { done <- w.send(ctx, copies, q) }(w.sending)
	return nil
}

// sendAheadBytes is how much queued data makes sendAheadOnceLarge send it. Each send costs the
// server a few round trips (a COPY per table, then the statements), between which it waits
// for us; a replay applying many blocks in one transaction therefore sends several together.
const sendAheadBytes = 512 << 10

// sendAheadOnceLarge is sendAhead once the queued writes reach sendAheadBytes.
func (w *Writer) sendAheadOnceLarge(ctx context.Context) error {
	size := len(w.requestRows)
	for _, st := range w.staged {
		size += len(st.data)
	}
	for _, q := range w.batch {
		size += len(q)
	}
	if size < sendAheadBytes {
		return nil
	}
	return w.sendAhead(ctx)
}

// wait waits for the writes being sent and returns their error.
func (w *Writer) wait() error {
	if w.sending == nil {
		return nil
	}
	err := <-w.sending
	w.sending = nil
	return err
}

// takeQueued hands over the queued writes: the staged rows to copy and the statements, joined
// into one multi-statement simple query (no parameters, so the driver does not prepare it and
// bun does not reformat the already formatted text). The deferred writes stay back for the
// next flush.
func (w *Writer) takeQueued() ([]stagedCopy, string) {
	w.queueBurnBlocks()
	q := strings.Join(w.batch, ";\n")
	w.batch, w.seesNewRows = w.batch[:0], false
	return w.takeStaged(), q
}

// send copies the staged rows, then runs the statements. It fails when they return rows: a
// queued write must return none, as the next read behind queued writes would get them instead
// of its own (see queryRow). Which statements precede a read depends on the messages, so every
// send checks, at no cost: the driver reports the first result set's columns either way.
func (w *Writer) send(ctx context.Context, copies []stagedCopy, q string) error {
	if err := w.copyStaged(ctx, copies); err != nil || q == "" {
		return err
	}
	rows, err := w.tx.Tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	cols, err := rows.Columns()
	if err == nil && len(cols) > 0 {
		err = fmt.Errorf("a queued write returns rows (columns %v)", cols)
	}
	return errors.Join(err, rows.Close())
}

// insertRequests stages the held-back request-log rows, to be copied straight into the log
// at the next round trip: nothing reads the log during ingestion, and the payloads, the largest
// part of a replay's writes, are valid JSON already (they were decoded, so they hold no NUL
// byte). As COPY text they go in as they are, where bun would re-encode, compact and escape
// them rune by rune, and the server would lex them as string literals.
func (w *Writer) insertRequests() {
	if len(w.requests) == 0 {
		return
	}
	size := 0
	for _, r := range w.requests {
		size += len(r.Payload) + 128
	}
	b := slices.Grow(w.requestRows, size)
	for _, r := range w.requests {
		b = strconv.AppendInt(b, r.ID, 10)
		b = append(b, '\t')
		b = r.ReceiveTimestamp.UTC().AppendFormat(b, "2006-01-02 15:04:05.999999-07:00")
		b = append(b, '\t')
		b = appendCopyText(b, []byte(r.EventPath))
		b = append(b, '\t')
		b = appendCopyText(b, r.Payload)
		b = append(b, '\n')
	}
	w.requestRows = b
}

// queueDeferred queues the writes kept back for one statement per round trip.
func (w *Writer) queueDeferred() {
	w.queueBurnBlocks()
	w.insertRequests()
	w.addTotals(w.totals, 1)
	w.requests, w.totals = nil, nil
}

// queryRow runs a one-row read behind the queued writes, in the same round trip: the read
// sees them, and a failing write fails the read. Queued writes must therefore return no rows
// (the driver hands back the first result set), which is why inserts go without RETURNING.
// send fails on a write that returns rows; here such a write fails the read too, as the driver
// reads no result set after the first (TestQueuedWriteReturningRowsFails).
func (w *Writer) queryRow(ctx context.Context, dest []any, q string, args ...any) error {
	w.queueDeferred()
	if err := w.wait(); err != nil {
		return err
	}
	if err := w.copyStaged(ctx, w.takeStaged()); err != nil {
		return err
	}
	stmts := append(w.batch, w.tx.NewRaw(q, args...).String())
	w.batch, w.seesNewRows = w.batch[:0], false
	return w.tx.Tx.QueryRowContext(ctx, strings.Join(stmts, ";\n")).Scan(dest...)
}

// notify queues a notice on notices.EventsChannel: kept in the notice log and sent on commit.
func (w *Writer) notify(n notices.Payload) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	w.exec(notices.InsertSQL, notices.EventsChannel, string(b))
	return nil
}

func byteArray(bs [][]byte) any { return pgdialect.Array(bs) }

// insertAll inserts rows in one multi-row statement; duplicates (a retried message's rows)
// are ignored.
func insertAll[T any](w *Writer, rows []T) { w.insertTogether(valuesInsert(rowsInsert(w, rows))) }

// valuesInsert is q as a rowWrite: a VALUES list, which reads no table.
func valuesInsert(q *bun.InsertQuery) rowWrite {
	if q == nil {
		return ""
	}
	return rowWrite(q.Returning("NULL").String())
}

// rowsInsert is insertAll's statement, nil when there are no rows.
func rowsInsert[T any](w *Writer, rows []T) *bun.InsertQuery {
	if len(rows) == 0 {
		return nil
	}
	return w.tx.NewInsert().Model(&rows).On("CONFLICT DO NOTHING")
}

// insertTogether queues inserts (empty ones are skipped) as one statement: all but the last in
// a WITH clause. A message writes a dozen tables, and each statement costs PostgreSQL a fixed
// amount beyond its rows. The inserts of one statement do not see each other's rows, so none
// may depend on another's: a rowWrite reads no table but its own staging table (see rowWrite).
func (w *Writer) insertTogether(qs ...rowWrite) {
	var ctes []string
	var last rowWrite
	for _, q := range qs {
		if q == "" {
			continue
		}
		if last != "" {
			ctes = append(ctes, fmt.Sprintf("i%d AS (%s)", len(ctes), last))
		}
		last = q
	}
	if last == "" {
		return
	}
	stmt := string(last)
	if len(ctes) > 0 {
		stmt = "WITH " + strings.Join(ctes, ", ") + " " + stmt
	}
	w.add(stmt)
}
