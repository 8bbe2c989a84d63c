package chainwrite

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/schema"
)

// copyMinRows is the number of rows of one table in one message from which they go to the
// server as COPY data rather than as a VALUES list: PostgreSQL parses, analyzes and plans a
// VALUES list expression by expression, several times the cost of reading COPY text, while a
// COPY costs one more round trip. A block of a busy chain has dozens of transactions and
// events, and twice as many principal rows. (A variable only so that TestCopyAndValuesStoreTheSame
// can send every row one way or the other.)
var copyMinRows = 16

// rowWrite is one table's insert of rows, empty for none, to run with others as one statement
// (see insertTogether). It reads no table but its own staging table, which only COPY fills:
// valuesInsert and insertRows make every rowWrite, so that no insert of a statement depends on
// the rows another inserts. It has no RETURNING clause: a queued write returns no rows (see
// send), and a data-modifying WITH query needs none.
type rowWrite string

// copyMode says where rows copied to the server go.
type copyMode int

const (
	// toStaging: rows go to a staging table, from which an insert that skips the rows already
	// stored reads them in queue order.
	toStaging copyMode = iota
	// toTable: rows go straight into their table, ahead of the statements queued with them: only
	// for rows that cannot be stored yet and that no statement queued before them touches. The
	// rows of a new block (see insertBlockRows) are named by no statement queued before them but
	// the statements that read the chain's rows of any block, which set seesNewRows; while it is
	// set, such rows go through staging instead.
	toTable
)

// insertRows is the insert of rows, empty when there are none or they are copied straight into
// their table. Many rows are copied at the next round trip, ahead of the queued statements
// (see copyStaged); few go as a VALUES list. Duplicates (a retried message's rows) are ignored
// wherever an insert runs.
func insertRows[T any](w *Writer, rows []T, mode copyMode) (rowWrite, error) {
	if len(rows) < copyMinRows {
		return valuesInsert(rowsInsert(w, rows)), nil
	}
	if mode == toTable && w.seesNewRows {
		mode = toStaging
	}
	table := w.tx.Dialect().Tables().Get(reflect.TypeFor[T]())
	st := w.stagingOf(table, mode)
	var lead []byte
	if mode == toStaging {
		w.stageSeq++
		lead = strconv.AppendInt(nil, int64(w.stageSeq), 10)
		lead = append(lead, '\t')
	}
	var err error
	if st.data, err = appendCopyRows(st.data, w.tx.Dialect(), table, lead, reflect.ValueOf(rows)); err != nil {
		return "", fmt.Errorf("copy %s: %w", table.Name, err)
	}
	if mode == toTable {
		return "", nil
	}
	return rowWrite(fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE stage_seq = %d ON CONFLICT DO NOTHING",
		table.Name, st.cols, st.cols, st.name(), w.stageSeq)), nil
}

// stagingOf is the buffer of the rows of table copied in mode, started on first use.
func (w *Writer) stagingOf(table *schema.Table, mode copyMode) *staging {
	key := stagingKey{table.Name, mode}
	st := w.staged[key]
	if st == nil {
		st = &staging{table: table, cols: columnList(table)}
		if mode == toTable {
			st.direct = table.Name
		}
		if w.staged == nil {
			w.staged = map[stagingKey]*staging{}
		}
		w.staged[key] = st
	}
	return st
}

type stagingKey struct {
	table string
	mode  copyMode
}

// staging holds one table's staged rows not copied to the server yet, as COPY text.
type staging struct {
	table *schema.Table
	cols  string
	data  []byte
	// created says the staging table is known to exist in this transaction's session.
	created bool
	// direct, when set, is the table the rows are copied into instead, with cols.
	direct string
}

// name is the session's staging table: the table's columns after the number of the insert
// that reads the row, emptied at every commit.
func (st *staging) name() string { return "stage_" + st.table.Name }

// copyInto is the COPY statement that reads the rows.
func (st *staging) copyInto() string {
	if st.direct != "" {
		return fmt.Sprintf("COPY %s (%s) FROM STDIN", st.direct, st.cols)
	}
	return fmt.Sprintf("COPY %s (stage_seq, %s) FROM STDIN", st.name(), st.cols)
}

func columnList(t *schema.Table) string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// requestLog stands for the request log, whose rows are copied into the table itself.
var requestLog = &staging{cols: "id, receive_timestamp, event_path, payload", direct: "event_observer_requests"}

// stagedCopy is one staging table's rows on their way to the server.
type stagedCopy struct {
	st   *staging
	data []byte
}

// takeStaged hands over the staged rows not copied yet; staging goes on in fresh buffers.
func (w *Writer) takeStaged() []stagedCopy {
	var out []stagedCopy
	if len(w.requestRows) > 0 {
		out = append(out, stagedCopy{st: requestLog, data: w.requestRows})
		w.requestRows = nil
	}
	for _, st := range w.staged {
		if len(st.data) > 0 {
			out = append(out, stagedCopy{st: st, data: st.data})
			st.data = nil
		}
	}
	return out
}

// copyStaged copies rows into their staging tables, created on first use.
func (w *Writer) copyStaged(ctx context.Context, copies []stagedCopy) error {
	if len(copies) == 0 {
		return nil
	}
	var create []string
	for _, c := range copies {
		if !c.st.created && c.st.direct == "" {
			create = append(create, fmt.Sprintf(`CREATE TEMP TABLE IF NOT EXISTS %[1]s (stage_seq int NOT NULL, LIKE %[2]s) ON COMMIT DELETE ROWS;
				CREATE INDEX IF NOT EXISTS %[1]s_seq ON %[1]s (stage_seq)`, c.st.name(), c.st.table.Name))
		}
	}
	if len(create) > 0 {
		if _, err := w.tx.Tx.ExecContext(ctx, "SET LOCAL client_min_messages = warning; "+strings.Join(create, "; ")); err != nil {
			return err
		}
		for _, c := range copies {
			if c.st.direct == "" { // requestLog is shared by every writer, and never created
				c.st.created = true
			}
		}
	}
	for _, c := range copies {
		if _, err := pgdriver.CopyFrom(ctx, w.conn, bytes.NewReader(c.data), c.st.copyInto()); err != nil {
			return fmt.Errorf("%s: %w", c.st.copyInto(), err)
		}
	}
	return nil
}

// appendCopyRows appends the rows (a slice of struct pointers), each led by lead, in COPY's
// text format. Each value is the SQL literal the dialect writes in a VALUES list, unquoted and
// escaped for COPY, so that both ways store the same values.
func appendCopyRows(out []byte, d schema.Dialect, table *schema.Table, lead []byte, rows reflect.Value) ([]byte, error) {
	gen := schema.NewQueryGen(d)
	var lit []byte
	for i := 0; i < rows.Len(); i++ {
		strct := rows.Index(i).Elem()
		out = append(out, lead...)
		for j, f := range table.Fields {
			if j > 0 {
				out = append(out, '\t')
			}
			lit = f.AppendValue(gen, lit[:0], strct)
			var err error
			if out, err = appendCopyValue(out, lit); err != nil {
				return nil, fmt.Errorf("column %s: %w", f.Name, err)
			}
		}
		out = append(out, '\n')
	}
	return out, nil
}

// appendCopyValue appends a SQL literal as a COPY text field: NULL as \N, a quoted string
// unquoted, and backslashes and line breaks escaped.
func appendCopyValue(b, lit []byte) ([]byte, error) {
	switch {
	case string(lit) == "NULL":
		return append(b, `\N`...), nil
	case len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'':
		s := lit[1 : len(lit)-1]
		if bytes.Contains(s, []byte("''")) { // quotes are doubled inside a literal
			s = bytes.ReplaceAll(s, []byte("''"), []byte("'"))
		}
		return appendCopyText(b, s), nil
	case bytes.ContainsAny(lit, "'\\\t\n\r ("):
		// Anything but a bare number or keyword (an expression, a cast) has no COPY form.
		return nil, fmt.Errorf("no COPY form for %s", lit)
	default:
		return append(b, lit...), nil
	}
}

// appendCopyText appends s as a COPY text field: backslashes and line breaks escaped.
func appendCopyText(b, s []byte) []byte {
	for {
		i := bytes.IndexAny(s, "\\\n\r\t")
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		switch s[i] {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		}
		s = s[i+1:]
	}
}
