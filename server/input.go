package server

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
)

// textInput rejects an operation whose string arguments or variables hold a NUL character.
// PostgreSQL text cannot store one, so no chain value contains it; left to run, the statement
// would fail as an internal error instead of as the caller's bad input.
type textInput struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = textInput{}

func (textInput) ExtensionName() string                          { return "TextInput" }
func (textInput) Validate(schema graphql.ExecutableSchema) error { return nil }

func (textInput) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	bad := hasNUL(opCtx.Variables)
	if !bad && opCtx.Operation != nil {
		bad = literalHasNUL(opCtx.Operation.SelectionSet)
	}
	if bad {
		return codedError(stxgraph.EINVALID, "input contains a NUL character, which no chain value contains")
	}
	return nil
}

func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case []any:
		for _, e := range v {
			if hasNUL(e) {
				return true
			}
		}
	case []string:
		for _, e := range v {
			if hasNUL(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if hasNUL(e) {
				return true
			}
		}
	}
	return false
}

func literalHasNUL(set ast.SelectionSet) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, a := range s.Arguments {
				if valueHasNUL(a.Value) {
					return true
				}
			}
			if literalHasNUL(s.SelectionSet) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && literalHasNUL(s.Definition.SelectionSet) {
				return true
			}
		case *ast.InlineFragment:
			if literalHasNUL(s.SelectionSet) {
				return true
			}
		}
	}
	return false
}

func valueHasNUL(v *ast.Value) bool {
	if v == nil {
		return false
	}
	if (v.Kind == ast.StringValue || v.Kind == ast.BlockValue) && strings.IndexByte(v.Raw, 0) >= 0 {
		return true
	}
	for _, c := range v.Children {
		if valueHasNUL(c.Value) {
			return true
		}
	}
	return false
}
