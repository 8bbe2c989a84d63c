package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// What gqlgen works out again for every object it resolves a field on depends on the operation
// alone: a field's arguments on its text and variables (a page of transactions asking each for
// its events parses `events(limit: 5)` once per transaction), and the fields an object's
// selection collects on the selection and the object's type. gqlgen keeps the collected fields
// per operation too, but computes a hashed key for every object to find them. The functions
// cmd/leafpath rewrites keep both in the memo of the operation being run, the collected fields
// in a set that the operations on the same document may share (CollectedFields).

// responseMemo is what one operation has worked out, by field and by selection. Each entry is
// worked out once, by the first object that needs it, and then only read, so the objects of one
// field share it.
type responseMemo struct {
	mu     sync.RWMutex
	args   map[*ast.Field]map[string]any
	leaves map[*ast.Field]bool // whether a field's selection reads leaves alone (Fields)
	fields *CollectedFields    // those its document shares (ShareCollectedFields); nil: gqlgen's own
}

// CollectedFields are the fields collected from the selections of one parsed document for the
// types of its objects. They depend on the document and on the values of the variables its
// directives read alone, so the operations run on the same document with the same such values
// (a REST path's fixed operation, request after request) can share them.
type CollectedFields struct {
	mu     sync.RWMutex
	fields map[selectionKey][]graphql.CollectedField
}

// NewCollectedFields returns an empty set of collected fields.
func NewCollectedFields() *CollectedFields {
	return &CollectedFields{fields: map[selectionKey][]graphql.CollectedField{}}
}

// ShareCollectedFields has the operation collect its fields into c, which other operations on
// the same document with the same values of the variables its directives read share: only
// their first object of each selection and type collects them. Call it before the operation
// resolves a field; an operation given no set collects its fields as gqlgen does, for itself.
func ShareCollectedFields(oc *graphql.OperationContext, c *CollectedFields) {
	// A subscription's operation is intercepted again for each event, with the same set.
	if m := memoOf(oc); m != nil && m.fields == nil {
		m.fields = c
	}
}

// selectionKey names a selection set of the operation document (by its first element and
// length) collected for the types an object satisfies (by the generated list's first element and
// length).
type selectionKey struct {
	first     *ast.Selection
	n         int
	satisfies *string
	types     int
}

// responseMemoExtension names the memo in the operation context's extension data.
const responseMemoExtension = "ResponseMemo"

// StartResponseMemo gives an operation its own memo. It is kept in the operation context's
// extension data, which the generated code holds (ec.OperationContext), so that every field
// finds it with one map read: a value of the request's context is found by walking the chain of
// contexts that each enclosing field and list element adds, several per level of the response.
func StartResponseMemo(oc *graphql.OperationContext) {
	oc.Stats.SetExtension(responseMemoExtension, &responseMemo{
		args:   map[*ast.Field]map[string]any{},
		leaves: map[*ast.Field]bool{},
	})
}

// memoOf is the operation's memo, nil when it has none. The extension data is written before
// the operation runs and only read while it does, so reads need no lock.
func memoOf(oc *graphql.OperationContext) *responseMemo {
	m, _ := oc.Stats.GetExtension(responseMemoExtension).(*responseMemo)
	return m
}

// argsOf returns field f's arguments, parsed by parse the first time the operation asks. An
// argument that fails to parse is not kept: each object reports its error, as gqlgen does.
func argsOf(oc *graphql.OperationContext, f *ast.Field, parse func() (map[string]any, error)) (map[string]any, error) {
	m := memoOf(oc)
	if m == nil {
		return parse()
	}
	m.mu.RLock()
	args, ok := m.args[f]
	m.mu.RUnlock()
	if ok {
		return args, nil
	}
	args, err := parse()
	if err == nil {
		m.mu.Lock()
		m.args[f] = args
		m.mu.Unlock()
	}
	return args, err
}

// collectFields is graphql.CollectFields, kept in the set of collected fields the operation
// shares (ShareCollectedFields) by the selection's and the type list's identity.
func collectFields(oc *graphql.OperationContext, sel ast.SelectionSet, satisfies []string) []graphql.CollectedField {
	m := memoOf(oc)
	if m == nil || m.fields == nil || len(sel) == 0 || len(satisfies) == 0 {
		return graphql.CollectFields(oc, sel, satisfies)
	}
	k := selectionKey{first: &sel[0], n: len(sel), satisfies: &satisfies[0], types: len(satisfies)}
	c := m.fields
	c.mu.RLock()
	fields, ok := c.fields[k]
	c.mu.RUnlock()
	if ok {
		return fields
	}
	fields = graphql.CollectFields(oc, sel, satisfies)
	c.mu.Lock()
	if len(c.fields) < maxCollectedSelections {
		c.fields[k] = fields
	}
	c.mu.Unlock()
	return fields
}

// maxCollectedSelections bounds the selections whose fields a set keeps. A document's objects
// are collected from its own selections and those the kept fields hold, so a set that outgrows
// any document's count is not being hit: it stops growing.
const maxCollectedSelections = 4096

// readsLeaves reports whether field f, resolved under ctx, selects leaves alone, none of them
// with a resolver (Fields.ReadsLeaves), asking once per operation. Without Fields it reports
// false: the field takes gqlgen's path.
func readsLeaves(ctx context.Context, oc *graphql.OperationContext, f graphql.CollectedField) bool {
	m := memoOf(oc)
	if m != nil {
		m.mu.RLock()
		leaves, ok := m.leaves[f.Field]
		m.mu.RUnlock()
		if ok {
			return leaves
		}
	}
	p, _ := ctx.Value(fieldsKey{}).(Fields)
	leaves := p != nil && f.Field != nil && p.ReadsLeaves(f)
	if m != nil {
		m.mu.Lock()
		m.leaves[f.Field] = leaves
		m.mu.Unlock()
	}
	return leaves
}
