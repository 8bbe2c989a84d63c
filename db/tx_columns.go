package db

import "strings"

// TxColumns is the set of txs columns a read of transactions fetches. A list showing a summary
// of each transaction leaves the wide part of its rows (the raw transaction and result, the
// decoded payload's columns, the execution costs) in PostgreSQL. The sets are few and fixed, so
// that a statement has one text per set and stays prepared.
type TxColumns uint8

const (
	// AllTxColumns reads every column of each row.
	AllTxColumns TxColumns = iota
	// TxSummaryColumns reads each row's key and position (all that cursors and the reads of its
	// block, microblock and events need) and the summary a list shows: type, status, fee, sender
	// and sponsor. Each column read costs every row an allocation or two in the driver, so the set
	// holds no more than the lists ask for. The other columns are left unread, and the rows come
	// back with their zero values.
	TxSummaryColumns
)

// txSummaryColumns are the columns of TxSummaryColumns, in the order of the Tx model.
var txSummaryColumns = []string{"tx_id", "index_block_hash", "microblock_hash", "tx_index", "status", "canonical",
	"microblock_canonical", "microblock_sequence", "block_height", "event_count",
	"event_kinds", "type_id", "fee_rate", "sender_address", "sponsored", "sponsor_address", "sponsor_nonce"}

// txSelectLists are the select lists of each set over the txs table aliased t.
var txSelectLists = map[TxColumns]string{
	AllTxColumns:     "t.*",
	TxSummaryColumns: "t." + strings.Join(txSummaryColumns, ", t."),
}

// txSelects are the SELECT … FROM txs of each set, as bun renders the model's.
var txSelects = map[TxColumns]string{
	AllTxColumns:     txSelect,
	TxSummaryColumns: renderer.NewSelect().Model((*Tx)(nil)).Column(txSummaryColumns...).String(),
}

// selectList renders the columns c reads of the txs table aliased t.
func (c TxColumns) selectList() string { return txSelectLists[c] }
