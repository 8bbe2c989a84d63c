package db

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// TxColumns is a set of the txs table's columns (bit i is txColumns[i]): a list of transactions
// reads only the columns its query shows, most of a wide row staying in PostgreSQL. The zero
// value is every column. It is comparable, so that loaders batch the pages that read the same.
type TxColumns uint64

// AllTxColumns reads every column.
const AllTxColumns TxColumns = 0

// txColumns are the txs columns in the order of the Tx model.
var txColumns = func() []string {
	var names []string
	for _, f := range renderer.Table(reflect.TypeFor[Tx]()).Fields {
		names = append(names, f.Name)
	}
	if len(names) > 64 {
		panic("TxColumns holds at most 64 columns")
	}
	return names
}()

// txKeyColumns are read whatever else is: a row's key and position, for cursors and for the
// reads of its children (block, microblock, events).
var txKeyColumns = txColumnsOf("tx_id", "index_block_hash", "microblock_hash", "tx_index", "microblock_sequence",
	"block_height", "canonical", "microblock_canonical", "event_count")

// TxColumnsNamed is the set of the named columns, with the key columns; it panics on a name the
// table does not have (a mistake in a field's column list).
func TxColumnsNamed(names ...string) TxColumns { return txColumnsOf(names...) | txKeyColumns }

func txColumnsOf(names ...string) TxColumns {
	var c TxColumns
	for _, n := range names {
		i := slices.Index(txColumns, n)
		if i < 0 {
			panic(fmt.Sprintf("txs has no column %q", n))
		}
		c |= 1 << i
	}
	return c
}

// Union is the columns of c and d (every column when either is every column).
func (c TxColumns) Union(d TxColumns) TxColumns {
	if c == AllTxColumns || d == AllTxColumns {
		return AllTxColumns
	}
	return c | d
}

// selectList renders the columns of alias that c reads, "alias.*" for every column.
func (c TxColumns) selectList(alias string) string {
	if c == AllTxColumns {
		return alias + ".*"
	}
	var cols []string
	for i, name := range txColumns {
		if c&(1<<i) != 0 {
			cols = append(cols, alias+"."+name)
		}
	}
	return strings.Join(cols, ", ")
}
