package db

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/schema"
)

// copyMinRows is the number of rows of one table in one message from which they go to the
// server as COPY data into a staging table rather than as a VALUES list: PostgreSQL turns a
// VALUES list into expressions row by row, several times the cost of reading COPY text. A
// replayed block of a busy chain has hundreds of transactions and events.
const copyMinRows = 64

// rowWrite is one table's insert in a combined statement (see insertTogether): its text with
// the given RETURNING list.
type rowWrite func(returning string) string

// insertRows is the insert of rows, nil when there are none: from the table's staging table
// when they are many (copying them there first), else as a VALUES list. Duplicates (a retried
// message's rows) are ignored either way.
func insertRows[T any](ctx context.Context, w *Writer, rows []T) (rowWrite, error) {
	if len(rows) < copyMinRows {
		return valuesInsert(rowsInsert(w, rows)), nil
	}
	table := w.tx.Dialect().Tables().Get(reflect.TypeFor[T]())
	stage, cols := "stage_"+table.Name, columnList(table)
	if err := w.copyRows(ctx, table, stage, cols, rows); err != nil {
		return nil, fmt.Errorf("copy %s: %w", table.Name, err)
	}
	// The staging table is emptied behind the insert, for the next message's rows.
	w.afterInsert = append(w.afterInsert, stage)
	return func(returning string) string {
		return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s ON CONFLICT DO NOTHING RETURNING %s",
			table.Name, cols, cols, stage, returning)
	}, nil
}

func columnList(t *schema.Table) string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// copyRows copies rows into the session's staging table for their table, created on first
// use with the table's columns, emptied at every commit. The writes queued before go first:
// among them may be the insert that reads the staging table's previous rows.
func (w *Writer) copyRows(ctx context.Context, table *schema.Table, stage, cols string, rows any) error {
	w.add(fmt.Sprintf("CREATE TEMP TABLE IF NOT EXISTS %s (LIKE %s) ON COMMIT DELETE ROWS", stage, table.Name))
	if err := w.sendQueued(ctx); err != nil {
		return err
	}
	data, err := copyText(w.tx.Dialect(), table, reflect.ValueOf(rows))
	if err != nil {
		return err
	}
	_, err = pgdriver.CopyFrom(ctx, w.conn, bytes.NewReader(data), fmt.Sprintf("COPY %s (%s) FROM STDIN", stage, cols))
	return err
}

// copyText renders the rows (a slice of struct pointers) in COPY's text format. Each value is
// the SQL literal the dialect writes in a VALUES list, unquoted and escaped for COPY, so that
// both ways store the same values.
func copyText(d schema.Dialect, table *schema.Table, rows reflect.Value) ([]byte, error) {
	gen := schema.NewQueryGen(d)
	var out, lit []byte
	for i := 0; i < rows.Len(); i++ {
		strct := rows.Index(i).Elem()
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
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '\'':
				i++ // quotes are doubled inside a literal
				b = append(b, '\'')
			case '\\':
				b = append(b, `\\`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, c)
			}
		}
		return b, nil
	case bytes.ContainsAny(lit, "'\\\t\n\r ("):
		// Anything but a bare number or keyword (an expression, a cast) has no COPY form.
		return nil, fmt.Errorf("no COPY form for %s", lit)
	default:
		return append(b, lit...), nil
	}
}
