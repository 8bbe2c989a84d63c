package graph

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"
	"weak"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// A list's elements run at once (unless it cannot wait), each under a field context holding its
// index, and come back in order; an element that panics nulls the list and reports its error at
// its own path, as with gqlgen's graphql.MarshalSliceConcurrently.
func TestListElementsRunOnReusedGoroutines(t *testing.T) {
	recovered := func(_ context.Context, err any) error { return fmt.Errorf("%v", err) }
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, recovered)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Name: "nodes"}}})
	mayWait := WithFields(ctx, listsFunc(func(graphql.CollectedField) bool { return true }))
	for round := range 3 { // the later rounds run on the workers the first left idle
		ctx := ctx
		if round > 0 { // a list whose elements may wait, as one not asked about
			ctx = mayWait
		}
		const n = 50
		started := make(chan struct{}, n)
		all := make(chan struct{})
		go func() {
			for range n {
				<-started
			}
			close(all)
		}()
		ret := marshalSliceConcurrently(ctx, n, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
			started <- struct{}{}
			select { // returns only once every element has started
			case <-all:
				return graphql.MarshalString(strconv.Itoa(*graphql.GetFieldContext(ctx).Index))
			case <-time.After(5 * time.Second):
				return graphql.MarshalString("not all elements started")
			}
		})
		var b bytes.Buffer
		ret.MarshalGQL(&b)
		var want bytes.Buffer
		want.WriteString("[")
		for i := range n {
			if i > 0 {
				want.WriteString(",")
			}
			want.WriteString(strconv.Quote(strconv.Itoa(i)))
		}
		want.WriteString("]")
		if b.String() != want.String() {
			t.Fatalf("round %d: %s, want %s", round, b.String(), want.String())
		}
	}

	ret := marshalSliceConcurrently(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		if i == 1 {
			panic("element 1")
		}
		return graphql.MarshalString("ok")
	})
	errs := graphql.GetErrors(ctx)
	if ret != nil || len(errs) != 1 || errs[0].Path.String() != "[1]" {
		t.Errorf("a panicking element gave %v with errors %v, want a null list and one error at [1]", ret, errs)
	}
}

// The elements of a list that cannot wait run one after another on the calling goroutine, in
// order; those of a list that may wait, and of one not asked about, run at once (the test above).
func TestListElementsThatCannotWaitRunInOrder(t *testing.T) {
	recovered := func(_ context.Context, err any) error { return fmt.Errorf("%v", err) }
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, recovered)
	list := &ast.Field{Name: "nodes"}
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: list}})
	asked := 0
	ctx = WithFields(ctx, listsFunc(func(f graphql.CollectedField) bool {
		asked++
		if f.Field != list {
			t.Errorf("asked about field %q, want the list's own", f.Name)
		}
		return false
	}))
	var order []int
	running := 0
	ret := marshalSliceConcurrently(ctx, 20, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		running++ // unsynchronised: the race detector reports elements running at once
		if running > 1 {
			t.Errorf("element %d runs beside another", i)
		}
		order = append(order, *graphql.GetFieldContext(ctx).Index)
		running--
		return graphql.MarshalInt(i)
	})
	if len(ret) != 20 || asked != 1 {
		t.Fatalf("%d elements, the lists asked %d times", len(ret), asked)
	}
	for i, got := range order {
		if got != i {
			t.Fatalf("elements ran in the order %v", order)
		}
	}

	ran := 0
	ret = marshalSliceConcurrently(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		ran++
		if i == 1 {
			panic("element 1")
		}
		return graphql.MarshalString("ok")
	})
	errs := graphql.GetErrors(ctx)
	if ret != nil || ran != 3 || len(errs) != 1 || errs[0].Path.String() != "[1]" {
		t.Errorf("a panicking element gave %v after %d elements with errors %v, want a null list after all 3 and one error at [1]", ret, ran, errs)
	}
}

// listsFunc answers ElementsMayWait; no selection of its reads leaves alone.
type listsFunc func(graphql.CollectedField) bool

func (f listsFunc) ElementsMayWait(_ context.Context, c graphql.CollectedField, _ any) bool {
	return f(c)
}

func (listsFunc) ReadsLeaves(graphql.CollectedField) bool { return false }

// A worker that has finished its work and waits for more keeps nothing of it alive: the answers
// it resolved are the collector's as soon as their requests end.
func TestIdleWorkersHoldNothing(t *testing.T) {
	done := make(chan struct{})
	held := spawnHolding(done)
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for held.Value() != nil && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if held.Value() != nil {
		t.Error("an idle worker keeps the last work it ran alive")
	}
}

// spawnHolding runs work that holds an answer of its own, and returns a weak pointer to it.
func spawnHolding(done chan struct{}) weak.Pointer[[1 << 16]byte] {
	answer := new([1 << 16]byte)
	spawn(func() {
		answer[0] = 1
		close(done)
	})
	return weak.Make(answer)
}
