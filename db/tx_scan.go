package db

import (
	"database/sql"
	"fmt"
)

// Rows of the txs table are the ones requests read most, up to hundreds a page. bun scans a
// row by looking each column's field up by name and converting its value through reflection,
// which cost a front page of 400 transactions more than the driver's reading of them. These rows
// are scanned into typed destinations instead, matched to the statement's columns once.

// txColumnDests are the scan destinations of each column of the txs table in a Tx.
var txColumnDests = map[string]func(*Tx) any{
	"tx_id":                            func(t *Tx) any { return &t.TxID },
	"index_block_hash":                 func(t *Tx) any { return &t.IndexBlockHash },
	"microblock_hash":                  func(t *Tx) any { return &t.MicroblockHash },
	"tx_index":                         func(t *Tx) any { return int32Column{&t.TxIndex} },
	"status":                           func(t *Tx) any { return int16Column{&t.Status} },
	"raw_result":                       func(t *Tx) any { return &t.RawResult },
	"vm_error":                         func(t *Tx) any { return nullStringColumn{&t.VMError} },
	"canonical":                        func(t *Tx) any { return &t.Canonical },
	"microblock_canonical":             func(t *Tx) any { return &t.MicroblockCanonical },
	"microblock_sequence":              func(t *Tx) any { return int32Column{&t.MicroblockSequence} },
	"block_hash":                       func(t *Tx) any { return &t.BlockHash },
	"block_height":                     func(t *Tx) any { return int32Column{&t.BlockHeight} },
	"block_time":                       func(t *Tx) any { return int64Column{&t.BlockTime} },
	"parent_index_block_hash":          func(t *Tx) any { return &t.ParentIndexBlockHash },
	"parent_block_hash":                func(t *Tx) any { return &t.ParentBlockHash },
	"burn_block_height":                func(t *Tx) any { return int32Column{&t.BurnBlockHeight} },
	"burn_block_time":                  func(t *Tx) any { return int64Column{&t.BurnBlockTime} },
	"parent_burn_block_time":           func(t *Tx) any { return int64Column{&t.ParentBurnBlockTime} },
	"coinbase_alt_recipient":           func(t *Tx) any { return nullStringColumn{&t.CoinbaseAltRecipient} },
	"event_count":                      func(t *Tx) any { return int32Column{&t.EventCount} },
	"raw_tx":                           func(t *Tx) any { return &t.RawTx },
	"type_id":                          func(t *Tx) any { return int16Column{&t.TypeID} },
	"nonce":                            func(t *Tx) any { return &t.Nonce },
	"fee_rate":                         func(t *Tx) any { return &t.FeeRate },
	"sender_address":                   func(t *Tx) any { return &t.SenderAddress },
	"sponsored":                        func(t *Tx) any { return &t.Sponsored },
	"sponsor_address":                  func(t *Tx) any { return nullStringColumn{&t.SponsorAddress} },
	"sponsor_nonce":                    func(t *Tx) any { return nullStringColumn{&t.SponsorNonce} },
	"anchor_mode":                      func(t *Tx) any { return int16Column{&t.AnchorMode} },
	"post_condition_mode":              func(t *Tx) any { return int16Column{&t.PostConditionMode} },
	"token_transfer_recipient_address": func(t *Tx) any { return nullStringColumn{&t.TokenTransferRecipientAddress} },
	"token_transfer_amount":            func(t *Tx) any { return nullStringColumn{&t.TokenTransferAmount} },
	"smart_contract_contract_id":       func(t *Tx) any { return nullStringColumn{&t.SmartContractContractID} },
	"contract_call_contract_id":        func(t *Tx) any { return nullStringColumn{&t.ContractCallContractID} },
	"contract_call_function_name":      func(t *Tx) any { return nullStringColumn{&t.ContractCallFunctionName} },
	"execution_cost_read_count":        func(t *Tx) any { return int64Column{&t.ReadCount} },
	"execution_cost_read_length":       func(t *Tx) any { return int64Column{&t.ReadLength} },
	"execution_cost_runtime":           func(t *Tx) any { return int64Column{&t.Runtime} },
	"execution_cost_write_count":       func(t *Tx) any { return int64Column{&t.WriteCount} },
	"execution_cost_write_length":      func(t *Tx) any { return int64Column{&t.WriteLength} },
}

// scanTxRows appends to dest a new R for each of rows, whose columns are those of the txs table
// (scanned into the R's Tx, which tx returns) and the R's own (own, by name).
func scanTxRows[R any](rows *sql.Rows, dest *[]*R, tx func(*R) *Tx, own map[string]func(*R) any) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	dests := make([]func(*R) any, len(cols))
	for i, c := range cols {
		if d := own[c]; d != nil {
			dests[i] = d
		} else if d := txColumnDests[c]; d != nil {
			dests[i] = func(r *R) any { return d(tx(r)) }
		} else {
			return fmt.Errorf("db: a transaction row has no field for column %q", c)
		}
	}
	values := make([]any, len(cols))
	for rows.Next() {
		r := new(R)
		for i, d := range dests {
			values[i] = d(r)
		}
		if err := rows.Scan(values...); err != nil {
			return err
		}
		*dest = append(*dest, r)
	}
	return rows.Err()
}

// scanTxModel scans rows into dest when it is a slice of one of the transaction row types, and
// reports whether it was.
func scanTxModel(rows *sql.Rows, dest any) (bool, error) {
	switch d := dest.(type) {
	case *[]*Tx:
		return true, scanTxRows(rows, d, func(t *Tx) *Tx { return t }, nil)
	case *[]*principalPageRow:
		return true, scanTxRows(rows, d, func(r *principalPageRow) *Tx { return &r.Tx },
			map[string]func(*principalPageRow) any{"total": func(r *principalPageRow) any { return int64Column{&r.Total} }})
	case *[]*PrincipalTxRow:
		return true, scanTxRows(rows, d, func(r *PrincipalTxRow) *Tx { return &r.Tx },
			map[string]func(*PrincipalTxRow) any{"principal": func(r *PrincipalTxRow) any { return &r.Principal }})
	}
	return false, nil
}
