package graph

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
)

// The elements of a list of objects, and the resolver fields of an object but the first, are
// resolved a goroutine each: the loaders batch a level only once all of it has started. A new
// goroutine starts with a small stack, and resolving a transaction grows it several times over,
// copying it each time, which was a tenth of the CPU of a page of transactions. They run on
// reused goroutines instead, whose stacks have grown already (cmd/leafpath routes the lists'
// marshallers through marshalSliceConcurrently; objectFields dispatches its fields here).

// maxIdleWorkers bounds the goroutines kept waiting for work; one more returns when it ends.
// Idle, they hold little: the collector shrinks the stacks they do not use.
const maxIdleWorkers = 4096

// worker is a goroutine that runs the functions sent to it, one at a time.
type worker chan func()

var workers struct {
	mu   sync.Mutex
	idle []worker
}

// spawn runs f on a goroutine of its own: an idle worker, or a new one.
func spawn(f func()) {
	workers.mu.Lock()
	if n := len(workers.idle); n > 0 {
		w := workers.idle[n-1]
		workers.idle = workers.idle[:n-1]
		workers.mu.Unlock()
		w <- f // never blocks: an idle worker's channel is empty and holds one
		return
	}
	workers.mu.Unlock()
	w := make(worker, 1)
	go w.run(f)
}

// run runs f, then waits for more work while there are not too many idle workers already. f
// must not panic: the callers recover as gqlgen does.
func (w worker) run(f func()) {
	for {
		f()
		workers.mu.Lock()
		if len(workers.idle) >= maxIdleWorkers {
			workers.mu.Unlock()
			return
		}
		workers.idle = append(workers.idle, w)
		workers.mu.Unlock()
		f = <-w
	}
}

// Fields tells the generated code what resolving a field's selection may involve, so that it
// spends gqlgen's machinery only where that is needed:
//
//   - gqlgen gives every element of a list of objects a goroutine of its own, so that the loaders
//     can batch the level, but elements whose selection holds no resolver at any depth only read
//     their row: they never wait, and the hand-over to a goroutine and back costs more than the
//     element (an account page's transactions asked for their ids, heights and fees). Neither do
//     elements whose only resolvers find what they read already there: a page of transactions
//     whose events were read with it;
//   - an object read from its parent's row (a transaction's sender, its payload) whose selection
//     holds leaves alone, none with a resolver, is written at once, as a leaf is (cmd/leafpath):
//     the field middleware would only pass it on, and a transaction has several such objects.
type Fields interface {
	// ElementsMayWait reports whether resolving list field f's selection on the elements of list
	// (the field's value), under ctx, may wait for a batch.
	ElementsMayWait(ctx context.Context, f graphql.CollectedField, list any) bool
	// ReadsLeaves reports whether field f's selection selects leaves alone, none of them with a
	// resolver: resolving it neither waits nor starts a field the middleware follows.
	ReadsLeaves(f graphql.CollectedField) bool
}

type fieldsKey struct{}

// WithFields has the fields resolved under ctx ask p what their selections involve; without it
// every list's elements run at once and every object goes through the middleware, as in gqlgen.
func WithFields(ctx context.Context, p Fields) context.Context {
	return context.WithValue(ctx, fieldsKey{}, p)
}

// elementsMayWait reports whether the elements of the list being marshalled under ctx may wait
// for a batch, and so must run at once. A list without a field of its own (an element of a list
// of lists) is not asked about.
func elementsMayWait(ctx context.Context) bool {
	p, _ := ctx.Value(fieldsKey{}).(Fields)
	if p == nil {
		return true
	}
	fc := graphql.GetFieldContext(ctx)
	return fc == nil || fc.Field.Field == nil || p.ElementsMayWait(ctx, fc.Field, fc.Result)
}

// marshalSliceConcurrently is graphql.MarshalSliceConcurrently with the elements run by spawn:
// the same field context per element, and a panicking element recovered into an error that
// nulls the list. A single element, and the elements of a list that cannot wait (Fields), run on
// the calling goroutine, one after another. The elements' field contexts and indexes are made in
// one allocation. A bounded number of workers or a panic handler left out stay with gqlgen's.
func marshalSliceConcurrently(ctx context.Context, length int, workerLimit int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if workerLimit > 0 || omitPanicHandler {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
	}
	ret := make(graphql.Array, length)
	if length == 0 {
		return ret
	}
	elements := make([]element, length)
	inOrder := length == 1
	if !inOrder && !elementsMayWait(ctx) {
		// Nothing below the elements waits: their objects' resolvers may run in order too.
		ctx, inOrder = context.WithValue(ctx, nothingWaitsKey{}, true), true
	}
	if inOrder {
		ok := true
		for i := range elements {
			ok = elements[i].marshal(ctx, i, ret, marshalElement) && ok
		}
		if !ok {
			return nil
		}
		return ret
	}
	var wg sync.WaitGroup
	var failed atomic.Bool
	wg.Add(length)
	for i := range elements {
		spawn(func() {
			defer wg.Done()
			if !elements[i].marshal(ctx, i, ret, marshalElement) {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return nil
	}
	return ret
}

type nothingWaitsKey struct{}

// nothingWaits reports whether ctx is under an element of a list that runs in order because
// nothing below its elements waits for a batch (Fields).
func nothingWaits(ctx context.Context) bool {
	w, _ := ctx.Value(nothingWaitsKey{}).(bool)
	return w
}

// element is the field context of a list's element, and the index it points to.
type element struct {
	fc    graphql.FieldContext
	index int
}

// marshal marshals element i of a list into ret[i] under its field context, and reports whether
// it did not panic (a panic is recovered into an error at the element's path).
func (e *element) marshal(ctx context.Context, i int, ret graphql.Array, marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	e.index = i
	e.fc.Index = &e.index
	childCtx := graphql.WithFieldContext(ctx, &e.fc)
	defer func() {
		if r := recover(); r != nil {
			graphql.AddError(childCtx, graphql.Recover(childCtx, r))
			ok = false
		}
	}()
	ret[i] = marshalElement(childCtx, i)
	return true
}
