package db

import (
	"context"
	"fmt"
	"strings"
)

// Keyset is one page of a list read in keyset order: up to Limit rows after a cursor (exclusive),
// in the list's own order or, with Reverse, from the other end (Relay's last/before). Offsets
// drift while blocks arrive; a cursor names a row by its key, so pages stay stable.
type Keyset struct {
	After   Cursor
	Limit   int
	Reverse bool
}

// Cursor is the key of a row in a keyset-ordered list: its integer key columns in order (Key)
// and, for lists that end in a bytea column (the mempool's tx_id), that column as raw bytes
// (Hash). It is comparable so that loaders can batch on it.
type Cursor struct {
	Set  bool
	Key  [4]int64
	Hash string
}

// clause renders the keyset condition and ORDER BY for a list ordered by cols, descending when
// desc; ints is how many of cols are integer columns (a further column takes Cursor.Hash). The
// tuple comparison lets PostgreSQL walk the composite index from the cursor.
func (k Keyset) clause(cols []string, ints int, desc bool) (where string, args []any, order string) {
	down := desc != k.Reverse
	dir, op := " ASC", ">"
	if down {
		dir, op = " DESC", "<"
	}
	ordered := make([]string, len(cols))
	for i, c := range cols {
		ordered[i] = c + dir
	}
	order = strings.Join(ordered, ", ")
	if !k.After.Set {
		return "TRUE", nil, order
	}
	marks := make([]string, len(cols))
	for i := range cols {
		marks[i] = "?"
		if i < ints {
			args = append(args, k.After.Key[i])
		} else {
			args = append(args, []byte(k.After.Hash))
		}
	}
	where = fmt.Sprintf("(%s) %s (%s)", strings.Join(cols, ", "), op, strings.Join(marks, ", "))
	return where, args, order
}

// pagePerKey is a statement that reads one page for each key of a batch: the keys are unnested
// as k(Key) and each is joined to Inner, a per-key SELECT with its ORDER BY that refers to k.Key,
// limited to Limit rows. It runs prepared, with the keys, Inner's arguments, then the limit as
// its parameters (Inner writes its own as ?).
type pagePerKey struct {
	Select string // the outer select list, e.g. "t.*"
	Keys   string // the keys, the text of an array parameter (byteaKeys, textArray)
	Type   string // the keys' element type: "bytea", "text"
	Key    string // the column name of a key in Inner
	Inner  string // the per-key SELECT, ordered
	Args   []any  // Inner's arguments
	Limit  int
	As     string // Inner's alias
	Tail   string // what follows the join: a further JOIN, the outer ORDER BY
}

// scan runs the statement into dest.
func (p pagePerKey) scan(ctx context.Context, s *Store, dest any) error {
	q := fmt.Sprintf("SELECT %s FROM unnest(?::%s[]) AS k(%s) CROSS JOIN LATERAL (\n\t\t%s LIMIT ?) %s%s",
		p.Select, p.Type, p.Key, p.Inner, p.As, p.Tail)
	args := make([]any, 0, len(p.Args)+2)
	args = append(append(append(args, p.Keys), p.Args...), p.Limit)
	return s.scanPrepared(ctx, numbered(q), dest, args...)
}
