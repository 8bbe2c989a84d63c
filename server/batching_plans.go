package server

import (
	"fmt"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/graph"
)

// plannedDocuments bounds the documents whose plans are kept: the REST adapter's one, and the
// /graphql documents gqlgen keeps parsed (its query cache holds 1000).
const plannedDocuments = 1024

// maxPlanVariants bounds the plans kept for one document, one per choice of the values its
// directives read: a document with n such variables has up to 3^n of them.
const maxPlanVariants = 16

// documentPlans is what planning found for one parsed document. The cache's key is the
// document's pointer, which keeps the document alive, so its address cannot be reused by another
// one while the entry lives; the plans' keys point into it too.
type documentPlans struct {
	vars []string // the variables its @skip, @include and @defer arguments read

	mu       sync.Mutex
	variants map[string]*plans // by the values of vars
}

// plansFor returns the plans of oc's document under the values its directives read.
func (b *Batching) plansFor(oc *graphql.OperationContext) *plans {
	if oc.Doc == nil {
		return newPlans()
	}
	d, ok := b.documents.Get(oc.Doc)
	if !ok {
		d = &documentPlans{vars: directiveVariables(oc.Doc), variants: map[string]*plans{}}
		b.documents.Add(oc.Doc, d)
	}
	key := variantKey(d.vars, oc.Variables)
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.variants[key]
	if p == nil {
		p = newPlans()
		if len(d.variants) < maxPlanVariants {
			p.fields = graph.NewCollectedFields()
			d.variants[key] = p
		}
	}
	return p
}

// variantKey names the values vars take in variables.
func variantKey(vars []string, variables map[string]any) string {
	if len(vars) == 0 {
		return ""
	}
	var b strings.Builder
	for _, v := range vars {
		value, set := variables[v]
		switch {
		case !set || value == nil:
			b.WriteByte('-')
		case value == true:
			b.WriteByte('1')
		case value == false:
			b.WriteByte('0')
		default:
			fmt.Fprintf(&b, "%q", fmt.Sprint(value))
		}
		b.WriteByte(',')
	}
	return b.String()
}

// directiveVariables lists the variables that the directives of doc read (each once): the only
// ones that change which fields CollectFields returns.
func directiveVariables(doc *ast.QueryDocument) []string {
	seen := map[string]bool{}
	var out []string
	eachSelection(doc, func(sel ast.Selection) {
		var ds ast.DirectiveList
		switch s := sel.(type) {
		case *ast.Field:
			ds = s.Directives
		case *ast.InlineFragment:
			ds = s.Directives
		case *ast.FragmentSpread:
			ds = s.Directives
		}
		for _, d := range ds {
			for _, a := range d.Arguments {
				if a.Value != nil && a.Value.Kind == ast.Variable && !seen[a.Value.Raw] {
					seen[a.Value.Raw] = true
					out = append(out, a.Value.Raw)
				}
			}
		}
	})
	return out
}

// eachSelection calls visit with every selection written in doc, in its operations and its
// fragments, each once (a fragment spread is visited, not followed).
func eachSelection(doc *ast.QueryDocument, visit func(ast.Selection)) {
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			visit(sel)
			switch s := sel.(type) {
			case *ast.Field:
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		walk(f.SelectionSet)
	}
}
