package graph

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// An object is written as gqlgen's FieldSet writes it: its fields in order, and a name that two
// merged fields share written once, with the first one's value.
func TestObjectFieldsWriteEachNameOnce(t *testing.T) {
	field := func(alias string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Alias: alias, Name: alias}}
	}
	for _, c := range []struct {
		aliases []string
		values  []string
	}{
		{nil, nil},
		{[]string{"txId"}, []string{"a"}},
		{[]string{"txId", "fee", "nonce"}, []string{"a", "b", "c"}},
		{[]string{"txId", "fee", "txId", "nonce"}, []string{"a", "b", "repeated", "c"}},
		{[]string{"fee", "fee"}, []string{"a", "repeated"}},
	} {
		fields := make([]graphql.CollectedField, len(c.aliases))
		for i, a := range c.aliases {
			fields[i] = field(a)
		}
		o := newObjectFields(fields)
		for i, v := range c.values {
			o.Values[i] = graphql.MarshalString(v)
		}
		var ours, theirs bytes.Buffer
		o.MarshalGQL(&ours)
		fs := graphql.NewFieldSet(fields)
		copy(fs.Values, o.Values)
		fs.MarshalGQL(&theirs)
		if ours.String() != theirs.String() || bytes.Contains(ours.Bytes(), []byte("repeated")) {
			t.Errorf("%v: wrote %s, gqlgen's FieldSet writes %s", c.aliases, ours.String(), theirs.String())
		}
	}
}

// An object with a deferred field gets a field set and a map of its own to resolve it into; an
// object without one shares the empty set, which only deferred fields write to, and no map.
func TestDeferredFieldsOnlyWhereDeferred(t *testing.T) {
	plain := []graphql.CollectedField{{Field: &ast.Field{Name: "txId"}}}
	deferred := []graphql.CollectedField{plain[0], {Field: &ast.Field{Name: "block"}, Deferrables: []*graphql.Deferrable{{Label: "b"}}}}

	set, views := deferredOf(plain)
	if set != noDeferred || views != nil {
		t.Errorf("an object without deferred fields got set %p (shared %p) and views %v", set, noDeferred, views)
	}
	a, aViews := deferredOf(deferred)
	b, _ := deferredOf(deferred)
	if a == noDeferred || a == b || aViews == nil {
		t.Fatalf("objects with a deferred field got sets %p and %p (shared %p), views %v", a, b, noDeferred, aViews)
	}
}

// Under an element of a list below which nothing waits (Fields), an object's resolvers run one
// after another, in their order, on the element's goroutine: none of them needs its siblings
// started to get its answer.
func TestObjectResolversRunInOrderWhereNothingWaits(t *testing.T) {
	recovered := func(_ context.Context, err any) error { return fmt.Errorf("%v", err) }
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, recovered)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Name: "nodes"}}})
	ctx = WithFields(ctx, listsFunc(func(graphql.CollectedField) bool { return false }))
	marshalSliceConcurrently(ctx, 2, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		o := newObjectFields(make([]graphql.CollectedField, 3))
		var order []int
		running := 0
		for j := range 3 {
			o.Concurrently(j, func(context.Context) graphql.Marshaler {
				running++ // unsynchronised: the race detector reports resolvers running at once
				if running > 1 {
					t.Errorf("element %d: resolver %d runs beside another", i, j)
				}
				order = append(order, j)
				running--
				return graphql.MarshalInt(j)
			})
		}
		o.Dispatch(ctx)
		if !slices.Equal(order, []int{0, 1, 2}) {
			t.Errorf("element %d: resolvers ran in the order %v", i, order)
		}
		return graphql.MarshalInt(i)
	})
}
