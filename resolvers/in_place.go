package resolvers

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// Some resolvers answer from what the read of their object read with it, and then wait for no
// batch: a transaction's events read with its page, a block's contents read with its page. The
// executor runs the elements of a list whose only resolvers answer so one after another
// (server.Batching), without a goroutine each.

// MayAnswerInPlace reports whether field name of object type typ has a resolver that may answer
// from what the read of its object read (ElementsAnswerInPlace tells when it does): a
// transaction's events and contract call, a block's contents and burn block.
func MayAnswerInPlace(typ, name string) bool {
	switch typ {
	case "Transaction":
		return name == "events" || name == "contractCall"
	case "Block":
		return name == "burnBlock" || slices.Contains(contentsFields, name)
	}
	return false
}

// ElementsAnswerInPlace reports whether the fields of MayAnswerInPlace that sel selects answer
// for every element of list from what the list's read read, waiting for no batch. list is the
// value of a list field: of transactions (their events read with them, or none in the window;
// contract calls of transactions that are none, or without their ABI), of transactions with
// their transfers (for the transactions their tx fields select), or of blocks (their contents
// and burn blocks read with them). For any other list it reports false. A field whose arguments its resolver
// refuses answers with the error.
func ElementsAnswerInPlace(ctx context.Context, sel ast.SelectionSet, list any) bool {
	switch l := list.(type) {
	case []*db.Tx:
		return txsAnswerInPlace(ctx, sel, l)
	case []*graph.TransactionWithTransfers:
		txs := make([]*db.Tx, len(l))
		for i, w := range l {
			txs[i] = w.Tx
		}
		return graph.EveryField(sel, func(f *ast.Field) bool {
			if f.Name == "tx" {
				return txsAnswerInPlace(ctx, f.SelectionSet, txs)
			}
			return f.Definition == nil || f.Definition.Type.Name() != "Transaction"
		})
	case []*db.Block:
		return graph.EveryField(sel, func(f *ast.Field) bool {
			switch {
			case f.Name == "burnBlock":
				return loaders.BurnBlocksRead(ctx, l)
			case slices.Contains(contentsFields, f.Name):
				return loaders.BlockContentsRead(ctx, l)
			}
			return true
		})
	}
	return false
}

func txsAnswerInPlace(ctx context.Context, sel ast.SelectionSet, txs []*db.Tx) bool {
	vars := graphql.GetOperationContext(ctx).Variables
	return graph.EveryField(sel, func(f *ast.Field) bool {
		switch f.Name {
		case "events":
			w, err := eventsFieldWindow(f, vars)
			return err != nil || loaders.EventsRead(ctx, txs, w, eventColumnsOf(f.SelectionSet))
		case "contractCall":
			withABI := f.ArgumentMap(vars)["abi"] != false
			return !withABI || !slices.ContainsFunc(txs, func(t *db.Tx) bool { return t.TypeID == db.TypeContractCall })
		}
		return true
	})
}
