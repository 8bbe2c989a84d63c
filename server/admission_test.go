package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph"
)

// operationContext is ctx running an operation of kind op, as the executor sets it.
func operationContext(ctx context.Context, op ast.Operation) context.Context {
	return graphql.WithOperationContext(ctx, &graphql.OperationContext{Operation: &ast.OperationDefinition{Operation: op}})
}

// admissionMetrics are the admission's figures as /metrics reports them.
func admissionMetrics(t *testing.T, a *admission) map[string]float64 {
	t.Helper()
	registry := prometheus.NewRegistry()
	a.register(registry)
	return gathered(t, registry)
}

// waitFor polls cond until it holds, failing the test after five seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

func TestAdmissionRunsAtMostItsSlotsAtOnce(t *testing.T) {
	const slots, operations = 4, 12
	a := newAdmission(slots / 2) // two slots per connection
	var inside, most atomic.Int32
	release := make(chan struct{})
	next := func(context.Context) *graphql.Response {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		inside.Add(-1)
		return &graphql.Response{}
	}
	ctx := operationContext(context.Background(), ast.Query)
	var wg sync.WaitGroup
	for range operations {
		wg.Add(1)
		go func() { defer wg.Done(); a.InterceptResponse(ctx, next) }()
	}
	waitFor(t, "the slots are taken and the rest wait", func() bool {
		return inside.Load() == slots && a.waiting.Load() == operations-slots
	})
	time.Sleep(20 * time.Millisecond) // room for one more to slip in, were it let
	if got := inside.Load(); got != slots {
		t.Fatalf("%d operations running at once, want %d", got, slots)
	}
	m := admissionMetrics(t, a)
	if m["stxgraph_operations_running"] != slots || m["stxgraph_operations_waiting"] != operations-slots {
		t.Errorf("metrics %v, want %d running and %d waiting", m, slots, operations-slots)
	}
	close(release)
	wg.Wait()
	if got := most.Load(); got != slots {
		t.Errorf("at most %d operations ran at once, want %d", got, slots)
	}
	m = admissionMetrics(t, a)
	if m["stxgraph_operations_running"] != 0 || m["stxgraph_operations_waiting"] != 0 || m["stxgraph_operations_wait_seconds_total"] <= 0 {
		t.Errorf("metrics %v after the operations, want none running or waiting and some time waited", m)
	}
}

func TestAdmissionAnswersUnavailableWhenTheQueryCannotStartInTime(t *testing.T) {
	a := newAdmission(1)
	a.slots.Acquire(context.Background(), 2) // both slots taken
	ran := false
	next := func(context.Context) *graphql.Response { ran = true; return &graphql.Response{} }
	ctx, cancel := context.WithTimeout(operationContext(context.Background(), ast.Query), 10*time.Millisecond)
	defer cancel()
	resp := a.InterceptResponse(ctx, next)
	if ran {
		t.Fatal("the operation ran without a slot")
	}
	if len(resp.Errors) != 1 {
		t.Fatalf("errors %v, want one", resp.Errors)
	}
	var e *stxgraph.Error
	if !errors.As(resp.Errors[0].Err, &e) || e.Code != stxgraph.EUNAVAILABLE {
		t.Errorf("error %v, want code %s", resp.Errors[0], stxgraph.EUNAVAILABLE)
	}
	if got := resp.Errors[0].Extensions["code"]; got != stxgraph.EUNAVAILABLE {
		t.Errorf("extension code %v, want %s", got, stxgraph.EUNAVAILABLE)
	}
	if m := admissionMetrics(t, a); m["stxgraph_operations_unstarted_total"] != 1 || m["stxgraph_operations_waiting"] != 0 {
		t.Errorf("metrics %v, want one operation unstarted and none waiting", m)
	}
}

func TestAdmissionLetsSubscriptionsAndMutationsThrough(t *testing.T) {
	a := newAdmission(1)
	a.slots.Acquire(context.Background(), 2) // both slots taken
	for _, op := range []ast.Operation{ast.Subscription, ast.Mutation} {
		ran := false
		a.InterceptResponse(operationContext(context.Background(), op), func(context.Context) *graphql.Response {
			ran = true
			return &graphql.Response{}
		})
		if !ran {
			t.Errorf("a %s waited for a slot", op)
		}
	}
}
