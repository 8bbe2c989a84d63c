package server

import (
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Plans are shared by the operations run on one document with the same values of the variables
// its directives read, and by those alone: those values change which fields are collected.
func TestPlansSharedPerDocumentAndDirectiveValues(t *testing.T) {
	doc, err := parser.ParseQuery(&ast.Source{Input: `query($deep: Boolean!, $n: Int, $typed: Boolean) {
		blocks(limit: $n) { height parent @include(if: $deep) { ...B } transactions @skip(if: $deep) { txId } } }
		fragment B on Block { height burnBlock @defer(if: $typed) { height } }`})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := directiveVariables(doc), []string{"deep", "typed"}; !slices.Equal(got, want) {
		t.Fatalf("directive variables %v, want %v", got, want)
	}
	b := newBatching(nil, 0)
	at := func(doc *ast.QueryDocument, vars map[string]any) *plans {
		return b.plansFor(&graphql.OperationContext{Doc: doc, Variables: vars})
	}
	shallow := at(doc, map[string]any{"deep": false, "n": 3})
	if at(doc, map[string]any{"deep": false, "n": 20}) != shallow {
		t.Error("a variable no directive reads gave other plans")
	}
	deep := at(doc, map[string]any{"deep": true, "n": 3})
	if deep == shallow {
		t.Error("another value of a directive's variable shared the plans")
	}
	if at(doc, map[string]any{"deep": true, "typed": true}) == deep {
		t.Error("a directive variable set gave the plans of it unset")
	}
	same, err := parser.ParseQuery(&ast.Source{Input: doc.Operations[0].Position.Src.Input})
	if err != nil {
		t.Fatal(err)
	}
	if at(same, map[string]any{"deep": false}) == at(doc, map[string]any{"deep": false}) {
		t.Error("another parse of the same text shared plans keyed by the other's selections")
	}
}

// A field selected once is planned on its selection as the document holds it, the same for
// every operation; one selected twice has its selections merged by gqlgen into a slice of the
// operation's own, whose plans must not be kept with the document's.
func TestPlannedSelectionsAreTheDocuments(t *testing.T) {
	doc, err := parser.ParseQuery(&ast.Source{Input: `{ a: blocks { height } ...F b: blocks { hash } }
		fragment F on Query { b: blocks { parent { height } } }`})
	if err != nil {
		t.Fatal(err)
	}
	firsts := map[string][]*ast.Selection{}
	for range 2 { // two operations on the document
		oc := &graphql.OperationContext{Doc: doc, Variables: map[string]any{}}
		for _, f := range graphql.CollectFields(oc, doc.Operations[0].SelectionSet, []string{"Query"}) {
			sel, shared := selection(f)
			if shared != (f.Alias == "a") || len(sel) != len(f.Selections) {
				t.Errorf("%s: %d selections, shared %v", f.Alias, len(sel), shared)
			}
			firsts[f.Alias] = append(firsts[f.Alias], &sel[0])
		}
	}
	if a := firsts["a"]; len(a) != 2 || a[0] != a[1] {
		t.Errorf("a's selection differs between operations: %v", a)
	}
}
