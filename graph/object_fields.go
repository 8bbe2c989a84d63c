package graph

import (
	"context"
	"io"
	"sync"

	"github.com/99designs/gqlgen/graphql"
)

// objectFields is one object's answer: gqlgen's graphql.FieldSet, whose values it holds, with its
// resolvers run on reused goroutines (spawn), and written without what FieldSet allocates for
// every object it writes: a copy of every field for its iterator, and a map of the names written
// so far. cmd/leafpath
// makes the objects' marshallers build it (newObjectFields); deferred fragments keep gqlgen's
// FieldSet.
type objectFields struct {
	graphql.FieldSet
	fields  []graphql.CollectedField
	delayed []delayedField
}

// delayedField is a field whose resolver runs in Dispatch.
type delayedField struct {
	i int
	f func(context.Context) graphql.Marshaler
}

// smallObject is an object of at most smallObjectFields fields and two resolver fields, whose
// answer is made in one allocation: most objects of a page are, and an object's allocations are
// paid once per row.
type smallObject struct {
	objectFields
	values  [smallObjectFields]graphql.Marshaler
	delayed [2]delayedField
}

const smallObjectFields = 8

func newObjectFields(fields []graphql.CollectedField) *objectFields {
	if len(fields) <= smallObjectFields {
		o := &smallObject{}
		o.fields, o.Values, o.objectFields.delayed = fields, o.values[:len(fields)], o.delayed[:0]
		return &o.objectFields
	}
	o := &objectFields{fields: fields}
	o.Values = make([]graphql.Marshaler, len(fields))
	return o
}

// Concurrently has field i's value be what f returns, once Dispatch runs it.
func (o *objectFields) Concurrently(i int, f func(context.Context) graphql.Marshaler) {
	o.delayed = append(o.delayed, delayedField{i: i, f: f})
}

// noDeferred is the deferred field set of every object none of whose fields is deferred: only a
// deferred field writes to it, so one set that stays empty serves them all.
var noDeferred = graphql.NewFieldSet(nil)

// deferredOf is the set an object's deferred fields are resolved into and the map of its deferred
// fragments by label (cmd/leafpath makes the objects' marshallers take them from here): new ones
// only when one of fields is deferred, else the shared empty set and a nil map, which are only
// read.
func deferredOf(fields []graphql.CollectedField) (*graphql.FieldSet, map[string]*graphql.FieldSetView) {
	if hasDeferred(fields) {
		return graphql.NewFieldSet(nil), make(map[string]*graphql.FieldSetView)
	}
	return noDeferred, nil
}

func hasDeferred(fields []graphql.CollectedField) bool {
	for i := range fields {
		if fields[i].IsDeferred() {
			return true
		}
	}
	return false
}

// Dispatch runs the delayed resolvers as gqlgen's FieldSet does, the first on the calling
// goroutine and each other one on a goroutine of its own (spawn), and returns when all are
// done: the loaders' batching (server/batching.go) follows that order. Under an element of a
// list below which nothing waits, they run one after another instead.
func (o *objectFields) Dispatch(ctx context.Context) {
	if len(o.delayed) == 0 {
		return
	}
	if nothingWaits(ctx) {
		for _, d := range o.delayed {
			o.Values[d.i] = d.f(ctx)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(o.delayed) - 1)
	for _, d := range o.delayed[1:] {
		spawn(func() {
			defer wg.Done()
			o.Values[d.i] = d.f(ctx)
		})
	}
	d := o.delayed[0]
	o.Values[d.i] = d.f(ctx)
	wg.Wait()
}

// MarshalGQL writes the object's fields in their order. A name is written once: fields merged
// from fragments on two interfaces can share an alias, and the first one answers, as in gqlgen's
// FieldSet. Comparing names with those before is cheaper than a map for the few fields an
// object has. Aliases are GraphQL names, which need no escaping.
func (o *objectFields) MarshalGQL(w io.Writer) {
	io.WriteString(w, "{")
	for i := range o.fields {
		alias := o.fields[i].Alias
		if repeatsAlias(o.fields[:i], alias) {
			continue
		}
		if i > 0 {
			io.WriteString(w, `,"`)
		} else {
			io.WriteString(w, `"`)
		}
		io.WriteString(w, alias)
		io.WriteString(w, `":`)
		o.Values[i].MarshalGQL(w)
	}
	io.WriteString(w, "}")
}

// repeatsAlias reports whether one of the fields before has alias.
func repeatsAlias(before []graphql.CollectedField, alias string) bool {
	for i := range before {
		if before[i].Alias == alias {
			return true
		}
	}
	return false
}
