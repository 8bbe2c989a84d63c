package graph

import "github.com/vektah/gqlparser/v2/ast"

// EveryField reports whether ok holds for every field of sel, those of its fragments included
// whatever their type condition and directives: a field that a fragment on another type or a
// skipping directive leaves out counts too, so that what a caller concludes from the answer
// (the columns a read needs, whether an answer may be kept) errs on the safe side. A fragment
// whose definition is unknown fails it.
func EveryField(sel ast.SelectionSet, ok func(*ast.Field) bool) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if !ok(s) {
				return false
			}
		case *ast.InlineFragment:
			if !EveryField(s.SelectionSet, ok) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || !EveryField(s.Definition.SelectionSet, ok) {
				return false
			}
		}
	}
	return true
}
