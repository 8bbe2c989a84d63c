package db

import (
	"database/sql"
	"fmt"
	"maps"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// Rows of the txs and blocks tables are the ones requests read most, up to hundreds a page, and
// balances the most often. bun
// scans a row by looking each column's field up by name and converting its value through
// reflection, which cost a front page of 400 transactions more than the driver's reading of
// them. These rows are scanned into typed destinations instead, matched to the statement's
// columns once.

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
	"event_kinds":                      func(t *Tx) any { return kindsColumn{&t.EventKinds} },
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

// blockColumnDests are the scan destinations of each column of the blocks table in a Block.
var blockColumnDests = map[string]func(*Block) any{
	"index_block_hash":            func(b *Block) any { return &b.IndexBlockHash },
	"block_hash":                  func(b *Block) any { return &b.BlockHash },
	"block_height":                func(b *Block) any { return int32Column{&b.BlockHeight} },
	"parent_index_block_hash":     func(b *Block) any { return &b.ParentIndexBlockHash },
	"parent_block_hash":           func(b *Block) any { return &b.ParentBlockHash },
	"parent_microblock_hash":      func(b *Block) any { return &b.ParentMicroblockHash },
	"parent_microblock_sequence":  func(b *Block) any { return int32Column{&b.ParentMicroblockSequence} },
	"burn_block_hash":             func(b *Block) any { return &b.BurnBlockHash },
	"burn_block_height":           func(b *Block) any { return int32Column{&b.BurnBlockHeight} },
	"burn_block_time":             func(b *Block) any { return int64Column{&b.BurnBlockTime} },
	"parent_burn_block_hash":      func(b *Block) any { return &b.ParentBurnBlockHash },
	"parent_burn_block_height":    func(b *Block) any { return int32Column{&b.ParentBurnBlockHeight} },
	"parent_burn_block_time":      func(b *Block) any { return int64Column{&b.ParentBurnBlockTime} },
	"block_time":                  func(b *Block) any { return int64Column{&b.BlockTime} },
	"miner_txid":                  func(b *Block) any { return &b.MinerTxid },
	"tenure_height":               func(b *Block) any { return nullInt32Column{&b.TenureHeight} },
	"signer_bitvec":               func(b *Block) any { return nullStringColumn{&b.SignerBitvec} },
	"signer_signatures":           func(b *Block) any { return pgdialect.Array(&b.SignerSignatures) },
	"consensus_hash":              func(b *Block) any { return &b.ConsensusHash },
	"tx_total_size":               func(b *Block) any { return int32Column{&b.TxTotalSize} },
	"tx_count":                    func(b *Block) any { return int32Column{&b.TxCount} },
	"execution_cost_read_count":   func(b *Block) any { return int64Column{&b.ReadCount} },
	"execution_cost_read_length":  func(b *Block) any { return int64Column{&b.ReadLength} },
	"execution_cost_runtime":      func(b *Block) any { return int64Column{&b.Runtime} },
	"execution_cost_write_count":  func(b *Block) any { return int64Column{&b.WriteCount} },
	"execution_cost_write_length": func(b *Block) any { return int64Column{&b.WriteLength} },
	"canonical":                   func(b *Block) any { return &b.Canonical },
}

// stxBalanceColumnDests are the scan destinations of the columns of a balance read (StxBalances)
// in a StxBalance: the read every balance and address page makes.
var stxBalanceColumnDests = map[string]func(*StxBalance) any{
	"principal":                    func(b *StxBalance) any { return &b.Principal },
	"balance":                      func(b *StxBalance) any { return &b.Balance },
	"total_sent":                   func(b *StxBalance) any { return &b.TotalSent },
	"total_received":               func(b *StxBalance) any { return &b.TotalReceived },
	"total_fees_sent":              func(b *StxBalance) any { return &b.TotalFeesSent },
	"total_miner_rewards_received": func(b *StxBalance) any { return &b.TotalMinerRewardsReceived },
	"lock_tx_id":                   func(b *StxBalance) any { return &b.LockTxID },
	"locked":                       func(b *StxBalance) any { return &b.Locked },
	"lock_height":                  func(b *StxBalance) any { return int32Column{&b.LockHeight} },
	"burnchain_lock_height":        func(b *StxBalance) any { return int32Column{&b.BurnchainLockHeight} },
	"burnchain_unlock_height":      func(b *StxBalance) any { return int32Column{&b.BurnchainUnlockHeight} },
	"mempool_inbound":              func(b *StxBalance) any { return nullStringColumn{&b.MempoolInbound} },
	"mempool_outbound":             func(b *StxBalance) any { return nullStringColumn{&b.MempoolOutbound} },
	"estimated_balance":            func(b *StxBalance) any { return nullStringColumn{&b.EstimatedBalance} },
	"latest_tx_id":                 func(b *StxBalance) any { return &b.LatestTxID },
	"latest_mempool_tx_id":         func(b *StxBalance) any { return &b.LatestMempoolTxID },
	"tx_count":                     func(b *StxBalance) any { return int64Column{&b.TxCount} },
}

// burnBlockColumnDests are the scan destinations of each column of the burn_blocks table.
var burnBlockColumnDests = map[string]func(*BurnBlock) any{
	"burn_block_hash":        func(b *BurnBlock) any { return &b.BurnBlockHash },
	"burn_block_height":      func(b *BurnBlock) any { return int32Column{&b.BurnBlockHeight} },
	"burn_amount":            func(b *BurnBlock) any { return &b.BurnAmount },
	"consensus_hash":         func(b *BurnBlock) any { return &b.ConsensusHash },
	"parent_burn_block_hash": func(b *BurnBlock) any { return &b.ParentBurnBlockHash },
	"canonical":              func(b *BurnBlock) any { return &b.Canonical },
}

// The destinations of the rows that hold a transaction and columns of their own.
var (
	principalPageRowDests = withTx(func(r *principalPageRow) *Tx { return &r.Tx },
		map[string]func(*principalPageRow) any{"total": func(r *principalPageRow) any { return int64Column{&r.Total} },
			"tip_streams": func(r *principalPageRow) any { return &r.TipStreams }, "latest_tx_id": func(r *principalPageRow) any { return &r.LatestTxID }})
	principalTxRowDests = withTx(func(r *PrincipalTxRow) *Tx { return &r.Tx },
		map[string]func(*PrincipalTxRow) any{"principal": func(r *PrincipalTxRow) any { return &r.Principal }})
)

// withTx is the destinations of a row type R with its own columns (own) and those of the
// transaction tx returns.
func withTx[R any](tx func(*R) *Tx, own map[string]func(*R) any) map[string]func(*R) any {
	out := maps.Clone(own)
	for c, d := range txColumnDests {
		out[c] = func(r *R) any { return d(tx(r)) }
	}
	return out
}

// scanModelRows appends to dest a new R for each of rows, each column scanned into the
// destination dests has for its name.
func scanModelRows[R any](rows *sql.Rows, dest *[]*R, dests map[string]func(*R) any) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	byColumn := make([]func(*R) any, len(cols))
	for i, c := range cols {
		if byColumn[i] = dests[c]; byColumn[i] == nil {
			return fmt.Errorf("db: %T has no field for column %q", *new(R), c)
		}
	}
	values := make([]any, len(cols))
	for rows.Next() {
		r := new(R)
		for i, d := range byColumn {
			values[i] = d(r)
		}
		if err := rows.Scan(values...); err != nil {
			return err
		}
		*dest = append(*dest, r)
	}
	return rows.Err()
}

// scanModel scans rows into dest when it is a slice of one of the row types above, and reports
// whether it was.
func scanModel(rows *sql.Rows, dest any) (bool, error) {
	switch d := dest.(type) {
	case *[]*Tx:
		return true, scanModelRows(rows, d, txColumnDests)
	case *[]*principalPageRow:
		return true, scanModelRows(rows, d, principalPageRowDests)
	case *[]*PrincipalTxRow:
		return true, scanModelRows(rows, d, principalTxRowDests)
	case *[]*Block:
		return true, scanModelRows(rows, d, blockColumnDests)
	case *[]*StxBalance:
		return true, scanModelRows(rows, d, stxBalanceColumnDests)
	case *[]*BurnBlock:
		return true, scanModelRows(rows, d, burnBlockColumnDests)
	}
	return false, nil
}
