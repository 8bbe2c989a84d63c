package graph

import (
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
