package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A selection's fields are collected once per response and type list: every object of a list
// gets the same fields gqlgen collects, and another selection or type list its own.
func TestCollectedFieldsAreKeptPerSelection(t *testing.T) {
	field := func(name string) *ast.Field { return &ast.Field{Name: name, Alias: name} }
	page := ast.SelectionSet{field("txId"), field("fee"), &ast.InlineFragment{TypeCondition: "Block",
		SelectionSet: ast.SelectionSet{field("height")}}}
	txs, blocks := []string{"Transaction"}, []string{"Block"}
	oc := &graphql.OperationContext{}
	StartResponseMemo(oc)
	ShareCollectedFields(oc, NewCollectedFields())

	names := func(fs []graphql.CollectedField) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Alias)
		}
		return out
	}
	first := collectFields(oc, page, txs)
	if got, want := names(first), names(graphql.CollectFields(oc, page, txs)); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("collected %v, gqlgen collects %v", got, want)
	}
	if again := collectFields(oc, page, txs); &again[0] != &first[0] {
		t.Error("the second object of the selection collected its fields again")
	}
	if got := names(collectFields(oc, page, blocks)); !slices.Equal(got, []string{"txId", "fee", "height"}) {
		t.Errorf("collected %v for a Block, want the fragment's field too", got)
	}
	if got := names(collectFields(oc, page[:1], txs)); !slices.Equal(got, []string{"txId"}) {
		t.Errorf("collected %v for the selection's first field alone", got)
	}
}

// Whether an object field's selection reads leaves alone is asked of the operation's Fields once
// per field; another field is asked about on its own, and without Fields every object takes
// gqlgen's path.
func TestReadsLeavesAskedOncePerField(t *testing.T) {
	oc := &graphql.OperationContext{}
	StartResponseMemo(oc)
	sender := graphql.CollectedField{Field: &ast.Field{Name: "sender"}}
	block := graphql.CollectedField{Field: &ast.Field{Name: "block"}}
	asked := map[string]int{}
	ctx := WithFields(context.Background(), leavesFunc(func(f graphql.CollectedField) bool {
		asked[f.Name]++
		return f.Name == "sender"
	}))
	for range 3 {
		if !readsLeaves(ctx, oc, sender) || readsLeaves(ctx, oc, block) {
			t.Fatal("a field's answer changed, or was another field's")
		}
	}
	if asked["sender"] != 1 || asked["block"] != 1 {
		t.Errorf("asked %v, want each field once", asked)
	}
	alone := &graphql.OperationContext{}
	StartResponseMemo(alone)
	if readsLeaves(context.Background(), alone, sender) {
		t.Error("without Fields a field was taken to read leaves alone")
	}
}

// leavesFunc answers ReadsLeaves; every list may wait.
type leavesFunc func(graphql.CollectedField) bool

func (leavesFunc) ElementsMayWait(context.Context, graphql.CollectedField, any) bool { return true }

func (f leavesFunc) ReadsLeaves(c graphql.CollectedField) bool { return f(c) }

// Operations that share a document's collected fields collect each selection once between them;
// an operation given no set collects them as gqlgen does, apart.
func TestCollectedFieldsSharedByOperations(t *testing.T) {
	sel := ast.SelectionSet{&ast.Field{Name: "txId", Alias: "txId"}, &ast.Field{Name: "fee", Alias: "fee"}}
	txs := []string{"Transaction"}
	shared := NewCollectedFields()
	operation := func(c *CollectedFields) *graphql.OperationContext {
		oc := &graphql.OperationContext{}
		StartResponseMemo(oc)
		if c != nil {
			ShareCollectedFields(oc, c)
		}
		return oc
	}
	first := collectFields(operation(shared), sel, txs)
	if again := collectFields(operation(shared), sel, txs); &again[0] != &first[0] {
		t.Error("the second operation sharing the fields collected them again")
	}
	if own := collectFields(operation(nil), sel, txs); &own[0] == &first[0] || len(own) != len(first) {
		t.Error("an operation given no set of fields was given the shared ones")
	}
}
