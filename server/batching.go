package server

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
)

// Batching drives the loaders' deterministic batching (see loaders.Operation): it grants a token
// to every field gqlgen will start without waiting for a batch, following how gqlgen orders the
// fields of an object:
//
//   - a field keeps its token while its resolver runs; before giving it back, it grants the first
//     fields of each object of its result, so the gap between a parent's return and its
//     children's start is covered although their goroutines do not exist yet;
//   - a resolver that waits on a loader gives its token back, and the loaders grant it again
//     before it wakes.

// schedule is the field plan of one operation (or subscription event) and the tokens it holds.
type schedule struct {
	oc      *graphql.OperationContext // kept here: a field finds it in its context only far out
	op      *loaders.Operation
	mu      sync.Mutex
	objects map[objectKey]*object // the objects whose fields have not all finished; guarded by mu

	plans *plans // shared by the operations run on the document with the same directive values
	local *plans // of selections gqlgen merged for this operation alone (inDocument)
}

// plansOf returns the plans of selections of the document (shared) or of this schedule alone.
func (r *schedule) plansOf(shared bool) *plans {
	if shared {
		return r.plans
	}
	return r.local
}

// selection returns f's selection, as the document holds it when it can (shared): gqlgen
// copies every collected field's selection into a slice of the operation's own, whose address
// no later operation would find again. A field selected once has the same selection as its
// document field; one selected several times (by fragments) has their selections merged, which
// is this operation's alone.
func selection(f graphql.CollectedField) (sel ast.SelectionSet, shared bool) {
	if own := f.Field.SelectionSet; len(own) == len(f.Selections) {
		return own, true
	}
	return f.Selections, false
}

// plans holds the plan of each selection objects were planned with, and whether each selection
// can wait for a batch: collecting a selection's fields is most of what planning costs. They
// depend on the document and on the variables its directives read alone, so every operation run
// on the same document with the same such values shares them (documentPlans).
type plans struct {
	mu      sync.Mutex
	objects map[planKey]*object
	waits   map[waitKey]bool
	fields  *graph.CollectedFields // the fields the operations' objects collect, when shared (graph.ShareCollectedFields)
}

func newPlans() *plans {
	return &plans{objects: map[planKey]*object{}, waits: map[waitKey]bool{}}
}

// planKey names a selection set of the operation document (by its first element, which the
// document holds for as long as the operation runs) on one type of the schema.
type planKey struct {
	first *ast.Selection
	n     int
	def   *ast.Definition
}

// waitKey names a selection set of the operation document on the field of the schema it
// selects from, whose type is the one the selection is made on: a field's key is found without
// looking its type up.
type waitKey struct {
	first         *ast.Selection
	n             int
	field         *ast.FieldDefinition
	besideInPlace bool // the question is waitsBesideInPlace', not canWait's
}

type scheduleKey struct{}

// How gqlgen resolves an object: its fields in collected order, those without a resolver inline
// one after the other, each with its whole subtree, then those with a resolver all at once
// (graphql.FieldSet.Dispatch). So a field may only start when its inline predecessors have
// finished, subtrees included: Batching grants the next inline field, or the resolver fields,
// when the previous one finishes (from the goroutine that finished it, before the object's own
// goroutine resumes).

// object is one object of a result (or the operation's root) and the state of its fields.
type object struct {
	key     objectKey
	parent  *field // nil for the root
	slots   []slot
	pending int // slots not finished
}

// slot is one field of an object.
type slot struct {
	alias                  string
	concurrent             bool // resolved by a resolver, after the inline fields
	granted, started, done bool
}

// field is one running (or finished) field, and how many objects of its result are unfinished.
type field struct {
	obj     *object // nil for a field no plan expected (deferred, or of an untyped object)
	slot    int
	pending int
}

// objectKey names an object by the field context of the field that returned it and its list
// position ("" for a single object, "2" or "2/0" in lists): its fields' contexts lead there.
type objectKey struct {
	fc   *graphql.FieldContext
	path string
}

// advanceLocked grants what may start next in o: the first unfinished inline field, or when none
// is left, the resolver fields.
func (r *schedule) advanceLocked(o *object) {
	for i := range o.slots {
		if sl := &o.slots[i]; !sl.concurrent && !sl.done {
			r.grantLocked(sl)
			return
		}
	}
	for i := range o.slots {
		if o.slots[i].concurrent {
			r.grantLocked(&o.slots[i])
		}
	}
}

func (r *schedule) grantLocked(sl *slot) {
	if !sl.granted && !sl.started {
		sl.granted = true
		r.op.Add(1)
	}
}

// enterLocked starts the field whose context is fc; a field no grant expected brings its token.
func (r *schedule) enterLocked(fc *graphql.FieldContext) *field {
	if o := r.objects[objectKeyOf(fc)]; o != nil {
		for i := range o.slots {
			if sl := &o.slots[i]; sl.alias == fc.Field.Alias && !sl.started {
				sl.started = true
				if !sl.granted {
					r.op.Add(1)
				}
				return &field{obj: o, slot: i}
			}
		}
	}
	r.op.Add(1)
	return &field{}
}

// leaveLocked ends f's resolver: the objects of its result get their first grants, then f gives
// its token back (last, so the count cannot touch zero in between).
func (r *schedule) leaveLocked(f *field, fc *graphql.FieldContext, children []*object) {
	for _, o := range children {
		if o.pending == 0 {
			continue
		}
		o.key.fc, o.parent = fc, f
		r.objects[o.key] = o
		f.pending++
		r.advanceLocked(o)
	}
	if f.pending == 0 {
		r.finishLocked(f)
	}
	r.op.Add(-1)
}

// finishLocked records that f and its subtree are done, and what that lets start.
func (r *schedule) finishLocked(f *field) {
	for f != nil && f.obj != nil {
		o := f.obj
		sl := &o.slots[f.slot]
		sl.done = true
		o.pending--
		if !sl.concurrent {
			r.advanceLocked(o)
		}
		if o.pending > 0 {
			return
		}
		delete(r.objects, o.key)
		if f = o.parent; f != nil {
			if f.pending--; f.pending > 0 {
				return
			}
		}
	}
}

// objectKeyOf finds the object a field belongs to from the field's context: list items add a
// context with their index between a field and the fields of the objects it returned; the root
// fields' parent context has no field.
func objectKeyOf(fc *graphql.FieldContext) objectKey {
	var path string
	p := fc.Parent
	for p != nil && p.Index != nil {
		if path == "" {
			path = strconv.Itoa(*p.Index)
		} else {
			path = strconv.Itoa(*p.Index) + "/" + path
		}
		p = p.Parent
	}
	if p == nil || p.Field.Field == nil {
		p = nil
	}
	return objectKey{fc: p, path: path}
}

// Batching is the gqlgen extension that runs every query, and every subscription event, as an
// operation of its request's scheduler, granting tokens field by field as described above.
// Register it on every executor whose requests pass through loaders.Middleware (the /graphql server and
// the REST adapter's). Subscription events get loaders of their own: the connection's would
// live as long as the WebSocket, and their cache would serve one event rows read for an earlier
// one (a fork may have changed them since). Mutations, whose root fields run one after the
// other, batch by the loaders' wait alone.
type Batching struct {
	loaders *loaders.Factory
	wait    time.Duration

	schema     *ast.Schema
	satisfies  map[string][]string        // object type -> the names its fragments may be typed on
	models     map[string]string          // object type -> the Go type its @goModel binds
	concurrent map[string]map[string]bool // object type -> its fields that have a resolver

	documents *lru.Cache[*ast.QueryDocument, *documentPlans]
}

// newBatching returns the extension; subscription events get loaders over store with wait.
func newBatching(store *db.Store, wait time.Duration) *Batching {
	documents, err := lru.New[*ast.QueryDocument, *documentPlans](plannedDocuments)
	if err != nil {
		panic(err) // only for a size below one
	}
	return &Batching{loaders: loaders.NewFactory(store), wait: wait, documents: documents}
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
	graphql.FieldInterceptor
} = (*Batching)(nil)

func (*Batching) ExtensionName() string { return "DeterministicBatching" }

// Validate indexes the schema's object types once: which names their fragments match, which Go
// types they bind and which fields gqlgen resolves through graph.ResolverRoot.
func (b *Batching) Validate(es graphql.ExecutableSchema) error {
	b.schema = es.Schema()
	b.satisfies, b.models, b.concurrent = map[string][]string{}, map[string]string{}, map[string]map[string]bool{}
	byGoName := map[string]string{}
	for name, def := range b.schema.Types {
		if def.Kind != ast.Object {
			continue
		}
		byGoName[goName(name)] = name
		names := []string{name}
		for _, super := range b.schema.GetImplements(def) {
			names = append(names, super.Name)
		}
		b.satisfies[name] = names
		if d := def.Directives.ForName("goModel"); d != nil {
			if a := d.Arguments.ForName("model"); a != nil && a.Value != nil {
				b.models[name] = a.Value.Raw
			}
		}
	}
	root := reflect.TypeFor[graph.ResolverRoot]()
	for i := range root.NumMethod() {
		m := root.Method(i)
		name, ok := byGoName[goName(m.Name)]
		if !ok || m.Type.NumOut() != 1 {
			continue
		}
		methods := map[string]bool{}
		for j := range m.Type.Out(0).NumMethod() {
			methods[goName(m.Type.Out(0).Method(j).Name)] = true
		}
		b.concurrent[name] = map[string]bool{}
		for _, f := range b.schema.Types[name].Fields {
			if methods[goName(f.Name)] {
				b.concurrent[name][f.Name] = true
			}
		}
	}
	return nil
}

// goName folds a GraphQL or Go name so that gqlgen's renaming (txIds -> TxIds, tx_id -> TxID)
// compares equal.
func goName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

func (b *Batching) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !graphql.HasOperationContext(ctx) || graphql.GetOperationContext(ctx).Operation == nil {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	r := &schedule{oc: oc, objects: map[objectKey]*object{}, plans: b.plansFor(oc), local: newPlans()}
	// The fields objects collect depend on what the plans do: the document and its directives'
	// values.
	graph.ShareCollectedFields(oc, r.plans.fields)
	var root *object
	switch oc.Operation.Operation {
	case ast.Query:
		root = r.plan(b, oc.Operation.SelectionSet, b.schema.Query, true)
	case ast.Subscription:
		ctx = loaders.With(ctx, b.loaders.New(b.wait))
		if root = b.eventPlan(r); root == nil {
			return next(ctx)
		}
	default:
		return next(ctx)
	}
	ctx, op := loaders.Begin(ctx)
	if op == nil {
		return next(ctx)
	}
	defer op.End()
	r.op = op
	r.mu.Lock()
	r.objects[root.key] = root
	r.advanceLocked(root)
	r.mu.Unlock()
	ctx = graph.WithFields(ctx, fieldsOf{b, r})
	return next(context.WithValue(ctx, scheduleKey{}, r))
}

// fieldsOf tells the fields of an operation what their selections involve: the elements of a
// list that cannot wait for a batch run one after another, as no resolver below them counts on
// its siblings starting, and an object field without a resolver that reads leaves alone is one
// InterceptField passes on untouched, which may as well not be asked.
type fieldsOf struct {
	b *Batching
	r *schedule
}

// ElementsMayWait is canWait, but for a list whose only resolvers answer from what the list's
// read read (resolvers.ElementsAnswerInPlace: a page of transactions with their events, a page
// of blocks with their contents): then they wait for nothing, and the elements need no goroutine
// each (a front page's 400 transactions had one each).
func (p fieldsOf) ElementsMayWait(ctx context.Context, f graphql.CollectedField, list any) bool {
	if !p.r.canWait(p.b, f) {
		return false
	}
	return p.r.waitsBesideInPlace(p.b, f) || !resolvers.ElementsAnswerInPlace(ctx, f.Selections, list)
}

func (p fieldsOf) ReadsLeaves(f graphql.CollectedField) bool { return p.b.readsLeaves(f.Selections) }

// eventPlan is the plan of one subscription event: the object its one root field streams (whose
// resolver ran once, when the subscription started).
func (b *Batching) eventPlan(r *schedule) *object {
	roots := graphql.CollectFields(r.oc, r.oc.Operation.SelectionSet, []string{b.schema.Subscription.Name})
	if len(roots) != 1 || roots[0].Definition == nil {
		return nil
	}
	def := b.schema.Types[roots[0].Definition.Type.Name()]
	if def == nil || def.Kind != ast.Object {
		return nil
	}
	sel, shared := selection(roots[0])
	return r.plan(b, sel, def, shared)
}

func (b *Batching) InterceptField(ctx context.Context, next graphql.Resolver) (res any, err error) {
	// Most fields are struct reads: they run inline and cannot wait, so the plan leaves them out.
	// The field's context is the innermost one, found before the schedule, which is far out.
	// gqlgen marks a field with a resolver in its context (what b.concurrent says of its type).
	fc := graphql.GetFieldContext(ctx)
	concurrent := fc.IsResolver
	if !concurrent && b.readsLeaves(fc.Field.Selections) {
		return next(ctx)
	}
	r, _ := ctx.Value(scheduleKey{}).(*schedule)
	if r == nil {
		return next(ctx)
	}
	waits := r.canWait(b, fc.Field) // whether the objects of its result need a plan
	if !concurrent && !waits {
		return next(ctx)
	}
	r.mu.Lock()
	f := r.enterLocked(fc)
	r.mu.Unlock()
	var children []*object
	defer func() { // also when the resolver panics
		r.mu.Lock()
		defer r.mu.Unlock()
		r.leaveLocked(f, fc, children)
	}()
	res, err = next(ctx)
	if err == nil && waits {
		children = b.children(r, fc.Field, res)
	}
	return res, err
}

// readsLeaves reports whether sel selects leaves alone, none of them with a resolver on the
// object type it is selected on (a leaf field itself, an account's principal, a result's hex and
// repr), directly or through fragments that are not deferred: resolving such a selection cannot
// wait, which its fields show without the plans.
func (b *Batching) readsLeaves(sel ast.SelectionSet) bool {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if len(s.SelectionSet) > 0 || s.ObjectDefinition == nil || s.ObjectDefinition.Kind != ast.Object ||
				b.concurrent[s.ObjectDefinition.Name][s.Name] {
				return false
			}
		case *ast.InlineFragment:
			if s.Directives.ForName("defer") != nil || !b.readsLeaves(s.SelectionSet) {
				return false
			}
		case *ast.FragmentSpread:
			if s.Directives.ForName("defer") != nil || s.Definition == nil || !b.readsLeaves(s.Definition.SelectionSet) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// children plans the objects gqlgen will resolve field f's selection on: those of res. Only a
// selection that can wait needs them (not a list of events asked for their type alone).
func (b *Batching) children(r *schedule, f graphql.CollectedField, res any) []*object {
	def := b.schema.Types[f.Definition.Type.Name()]
	if def == nil || (def.Kind != ast.Object && def.Kind != ast.Interface && def.Kind != ast.Union) {
		return nil
	}
	var out []*object
	sel, shared := selection(f)
	b.objects(r, sel, shared, def, reflect.ValueOf(res), "", &out)
	return out
}

// objects plans every object of v (lists flattened, keeping their positions; nulls have none).
func (b *Batching) objects(r *schedule, sel ast.SelectionSet, shared bool, def *ast.Definition, v reflect.Value, path string, out *[]*object) {
	switch v.Kind() {
	case reflect.Invalid:
		return
	case reflect.Interface:
		if !v.IsNil() {
			b.objects(r, sel, shared, def, v.Elem(), path, out)
		}
		return
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
	case reflect.Slice:
		for i := range v.Len() {
			p := strconv.Itoa(i)
			if path != "" {
				p = path + "/" + p
			}
			b.objects(r, sel, shared, def, v.Index(i), p, out)
		}
		return
	}
	if def.Kind != ast.Object {
		if def = b.concrete(def, v.Type()); def == nil {
			return // its fields bring their own tokens
		}
	}
	o := r.plan(b, sel, def, shared)
	o.key.path = path
	*out = append(*out, o)
}

// concrete is the possible type of def that gqlgen binds Go type t to: the one whose @goModel
// names t, else the one named as t.
func (b *Batching) concrete(def *ast.Definition, t reflect.Type) *ast.Definition {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, p := range b.schema.GetPossibleTypes(def) {
		if model := b.models[p.Name]; model == t.PkgPath()+"."+t.Name() || (model == "" && p.Name == t.Name()) {
			return p
		}
	}
	return nil
}

// plan returns a new object of type def planned for selection sel, from the schedule's plans.
func (r *schedule) plan(b *Batching, sel ast.SelectionSet, def *ast.Definition, shared bool) *object {
	k := planKey{n: len(sel), def: def}
	if len(sel) > 0 {
		k.first = &sel[0]
	}
	ps := r.plansOf(shared)
	ps.mu.Lock()
	p := ps.objects[k]
	ps.mu.Unlock()
	if p == nil { // planned outside the lock, which canWait takes; a race plans twice, alike
		p = b.plan(r, sel, def)
		ps.mu.Lock()
		ps.objects[k] = p
		ps.mu.Unlock()
	}
	return &object{slots: slices.Clone(p.slots), pending: p.pending}
}

// plan lists the fields of an object of type def with selection sel whose start the tokens must
// cover: __typename is written without a resolver, a field read from the struct whose selection
// cannot wait runs inline to its end (InterceptField passes it straight through), and deferred
// fields run after the response they are deferred from (they bring their own tokens).
func (b *Batching) plan(r *schedule, sel ast.SelectionSet, def *ast.Definition) *object {
	o := &object{}
	for _, f := range graphql.CollectFields(r.oc, sel, b.satisfies[def.Name]) {
		concurrent := b.concurrent[def.Name][f.Name]
		if f.Name != "__typename" && !f.IsDeferred() && (concurrent || r.canWait(b, f)) {
			o.slots = append(o.slots, slot{alias: f.Alias, concurrent: concurrent})
		}
	}
	o.pending = len(o.slots)
	return o
}

// waitsBesideInPlace reports whether resolving field f's selection may wait for a batch other
// than what its objects' resolvers may answer in place (resolvers.MayAnswerInPlace, when their
// own selections cannot wait): whether it holds another field with a resolver that may wait, at
// any depth, on its objects or on the transactions they hold (a transaction with its
// transfers).
func (r *schedule) waitsBesideInPlace(b *Batching, f graphql.CollectedField) bool {
	if f.Definition == nil || len(f.Selections) == 0 {
		return true
	}
	typ := f.Definition.Type.Name()
	return r.memoized(f, true, func(sel ast.SelectionSet) bool {
		for _, g := range graphql.CollectFields(r.oc, sel, b.satisfies[typ]) {
			var waits bool
			switch {
			case b.concurrent[typ][g.Name]:
				waits = !resolvers.MayAnswerInPlace(typ, g.Name) || r.canWait(b, g)
			case g.Definition != nil && g.Definition.Type.Elem == nil && g.Definition.Type.Name() == transactionType:
				waits = r.waitsBesideInPlace(b, g)
			default:
				waits = r.canWait(b, g)
			}
			if waits {
				return true
			}
		}
		return false
	})
}

// transactionType is the GraphQL type of mined transactions.
const transactionType = "Transaction"

// canWait reports whether resolving field f's selection may wait for a batch: whether it holds,
// at any depth and on any type its objects may have, a field with a resolver. A selection of
// struct reads alone (an execution cost, an account's principal) runs inline to its end, so it
// needs no token and its result no plan.
func (r *schedule) canWait(b *Batching, f graphql.CollectedField) bool {
	if len(f.Selections) == 0 || f.Definition == nil {
		return false
	}
	return r.memoized(f, false, func(sel ast.SelectionSet) bool {
		def := b.schema.Types[f.Definition.Type.Name()]
		if def == nil {
			return false
		}
		types := []*ast.Definition{def}
		if def.Kind != ast.Object {
			types = b.schema.GetPossibleTypes(def)
		}
		for _, t := range types {
			for _, g := range graphql.CollectFields(r.oc, sel, b.satisfies[t.Name]) {
				if b.concurrent[t.Name][g.Name] || r.canWait(b, g) {
					return true
				}
			}
		}
		return false
	})
}

// memoized is what find says of field f's (non-empty) selection, as the document holds it when
// it can (selection), worked out once per selection, field and question (besideInPlace).
func (r *schedule) memoized(f graphql.CollectedField, besideInPlace bool, find func(ast.SelectionSet) bool) bool {
	sel, shared := selection(f)
	k := waitKey{first: &sel[0], n: len(sel), field: f.Definition, besideInPlace: besideInPlace}
	ps := r.plansOf(shared)
	ps.mu.Lock()
	w, ok := ps.waits[k]
	ps.mu.Unlock()
	if ok {
		return w
	}
	w = find(sel)
	ps.mu.Lock()
	ps.waits[k] = w
	ps.mu.Unlock()
	return w
}
