package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
)

// txFieldColumns are the txs columns each Transaction field reads besides a row's key columns,
// which every page reads (db.TxColumnsNamed). A field missing here (one that decodes the raw
// transaction, say) reads every column.
var txFieldColumns = func() map[string]db.TxColumns {
	named := map[string][]string{
		"__typename": nil, "txId": nil, "txIndex": nil, "blockHeight": nil, "canonical": nil,
		"microblockCanonical": nil, "microblockSequence": nil, "microblockHash": nil, "eventCount": nil,
		"block": nil, "microblock": nil, "events": {"type_id"},
		"sender": {"sender_address"}, "senderAddress": {"sender_address"},
		"sponsor": {"sponsor_address"}, "sponsorAddress": {"sponsor_address"},
		"nonce": {"nonce"}, "feeRate": {"fee_rate"}, "sponsorNonce": {"sponsor_nonce"}, "sponsored": {"sponsored"},
		"postConditionMode": {"post_condition_mode"}, "anchorMode": {"anchor_mode"}, "txType": {"type_id"},
		"blockHash": {"block_hash"}, "isUnanchored": {"block_hash"}, "parentBlockHash": {"parent_block_hash"},
		"blockTime": {"block_time", "burn_block_time"}, "blockTimeIso": {"block_time", "burn_block_time"},
		"burnBlockHeight": {"burn_block_height"}, "burnBlockTime": {"burn_block_time"}, "burnBlockTimeIso": {"burn_block_time"},
		"parentBurnBlockTime": {"parent_burn_block_time"}, "parentBurnBlockTimeIso": {"parent_burn_block_time"},
		"txStatus": {"status"}, "txResult": {"raw_result"}, "vmError": {"vm_error"},
		"executionCostReadCount": {"execution_cost_read_count"}, "executionCostReadLength": {"execution_cost_read_length"},
		"executionCostRuntime": {"execution_cost_runtime"}, "executionCostWriteCount": {"execution_cost_write_count"},
		"executionCostWriteLength": {"execution_cost_write_length"},
	}
	out := make(map[string]db.TxColumns, len(named))
	for field, cols := range named {
		out[field] = db.TxColumnsNamed(cols...)
	}
	return out
}()

// txPageColumns is the columns a page of transactions reads for the connection field ctx
// resolves: those of the fields its nodes and its edges' nodes select.
func txPageColumns(ctx context.Context) db.TxColumns {
	oc, fc := graphql.GetOperationContext(ctx), graphql.GetFieldContext(ctx)
	cols := db.TxColumnsNamed()
	for _, f := range graphql.CollectFields(oc, fc.Field.Selections, []string{fc.Field.Definition.Type.Name()}) {
		switch f.Name {
		case "nodes":
			cols = cols.Union(txFieldsColumns(oc, f.Selections))
		case "edges":
			for _, e := range graphql.CollectFields(oc, f.Selections, []string{"TransactionEdge"}) {
				if e.Name == "node" {
					cols = cols.Union(txFieldsColumns(oc, e.Selections))
				}
			}
		}
	}
	return cols
}

// txFieldsColumns is the columns a selection on Transaction reads.
func txFieldsColumns(oc *graphql.OperationContext, sel ast.SelectionSet) db.TxColumns {
	cols := db.TxColumnsNamed()
	for _, f := range graphql.CollectFields(oc, sel, []string{"Transaction"}) {
		c, ok := txFieldColumns[f.Name]
		if !ok {
			return db.AllTxColumns
		}
		cols = cols.Union(c)
	}
	return cols
}
