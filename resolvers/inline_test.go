package resolvers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// A field resolver runs in a goroutine of its own; one that needs no context (no loader, no
// cancellation) only reads its object, so it belongs on the model as a method GraphQL resolves
// inline. Root fields (query, mutation, subscription) are resolvers whatever they do.
func TestFieldResolversUseTheirContext(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Type.Params.List) == 0 {
				continue
			}
			recv := receiverType(fn.Recv.List[0].Type)
			if !strings.HasSuffix(recv, "Resolver") || recv == "Resolver" || rootResolvers[recv] {
				continue
			}
			first := fn.Type.Params.List[0]
			if sel, ok := first.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" &&
				(len(first.Names) == 0 || first.Names[0].Name == "_") {
				t.Errorf("%s: (%s).%s ignores its context: make it a method of the model", fset.Position(fn.Pos()), recv, fn.Name.Name)
			}
		}
	}
}

var rootResolvers = map[string]bool{"queryResolver": true, "mutationResolver": true, "subscriptionResolver": true}

func receiverType(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
