package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
)

// txSummaryFields are the Transaction fields that db.TxSummaryColumns answer: the row's key and
// position, the children read by them (block, microblock, events by the row's type), and the
// summary fields read from their own column (sender_address, fee_rate, status, …). Any other
// field (one that decodes the raw transaction or result, say) reads every column.
var txSummaryFields = map[string]bool{
	"__typename": true, "txId": true, "txIndex": true, "blockHeight": true, "canonical": true,
	"microblockCanonical": true, "microblockSequence": true, "microblockHash": true, "eventCount": true,
	"block": true, "microblock": true, "events": true, "txType": true, "txStatus": true, "feeRate": true,
	"sender": true, "senderAddress": true, "sponsored": true, "sponsor": true, "sponsorAddress": true,
	"sponsorNonce": true,
}

// isSummaryField reports whether a field of a selection on Transaction is one of
// txSummaryFields: the one rule that lets a read of transactions leave columns unread.
func isSummaryField(f *ast.Field) bool { return txSummaryFields[f.Name] }

// txColumnsFor is the summary columns when every transaction read asks for summary fields
// alone, every column otherwise.
func txColumnsFor(summaryOnly bool) db.TxColumns {
	if summaryOnly {
		return db.TxSummaryColumns
	}
	return db.AllTxColumns
}

// Where the transactions a field reads stand in its selection, as paths of field names: a
// page's nodes and its edges' node, a lookup's results.
var (
	pageTxs   = [][]string{{"nodes"}, {"edges", "node"}}
	lookupTxs = [][]string{{"result"}}
)

// txPageColumns is the columns a page of transactions reads for the connection field ctx
// resolves: those its nodes and its edges' nodes ask for.
func txPageColumns(ctx context.Context) db.TxColumns {
	return txColumnsFor(everyFieldAsked(ctx, pageTxs, isSummaryField))
}

// txLookupColumns is the columns the mined transactions read for the lookup field ctx resolves:
// those its results ask for (a field asked of mempool transactions alone may make the read
// wider, never narrower).
func txLookupColumns(ctx context.Context) db.TxColumns {
	return txColumnsFor(everyFieldAsked(ctx, lookupTxs, isSummaryField))
}

// everyFieldAsked reports whether ok holds for every field asked of the objects (transactions,
// blocks) that the field ctx resolves reads: those of its selection down each of paths.
func everyFieldAsked(ctx context.Context, paths [][]string, ok func(*ast.Field) bool) bool {
	sel := graphql.GetFieldContext(ctx).Field.Selections
	for _, p := range paths {
		if !everyFieldAt(sel, p, ok) {
			return false
		}
	}
	return true
}

// everyFieldAt reports whether ok holds for every field of the selections found down path from
// sel (with everyField's rule at each step).
func everyFieldAt(sel ast.SelectionSet, path []string, ok func(*ast.Field) bool) bool {
	if len(path) == 0 {
		return graph.EveryField(sel, ok)
	}
	return graph.EveryField(sel, func(f *ast.Field) bool { return f.Name != path[0] || everyFieldAt(f.SelectionSet, path[1:], ok) })
}
