package server

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/sync/semaphore"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
)

// admission lets a bounded number of queries execute at once and starts the others in the
// order they arrived. Without it every request's statements compete for the pool's few
// connections, and database/sql hands a freed connection to a random waiter: a page that runs
// its statements one after another draws again for each, and the unlucky ones make the tail.
// Admitted in order, a query finds a connection free for each of its statements, and the
// waiting happens once, before it starts. Answers kept in the answer cache run no query and
// never wait here.
type admission struct {
	slots *semaphore.Weighted
	// What /metrics reports: operations waiting and running now, the time they waited, and
	// those whose request or time limit ended before they started.
	waiting, running, waited, unstarted atomic.Int64
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = (*admission)(nil)

// newAdmission admits twice as many queries at once as the pool has connections (pool; 0 for an
// unbounded pool, then the service's default, db.DefaultMaxOpen): a query spends about as long in Go as in
// PostgreSQL, so that keeps every connection busy, and one that holds its slot long (a big page
// computed after a new block) does not stop the others. On the soak's mix of REST and GraphQL
// reads it held a 10–15% higher peak than no admission and than one slot per connection, with
// the 99th percentile at 56–61 ms against 78–97 ms without.
func newAdmission(pool int) *admission {
	if pool <= 0 {
		pool = db.DefaultMaxOpen()
	}
	return &admission{slots: semaphore.NewWeighted(int64(2 * pool))}
}

func (*admission) ExtensionName() string                          { return "Admission" }
func (*admission) Validate(schema graphql.ExecutableSchema) error { return nil }

// InterceptResponse waits for a slot, within the operation's time limit (the timeout extension
// runs outside it), and holds it until the response is built. Only queries wait: a subscription
// lives as long as its client, and a mutation (a faucet's payment) waits on a node, which reads
// should not queue behind.
func (a *admission) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !runs(ctx, ast.Query) {
		return next(ctx)
	}
	if err := a.enter(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return &graphql.Response{Errors: gqlerror.List{codedError(stxgraph.EUNAVAILABLE, "the server is busy: the query did not start within its time limit")}}
		}
		return &graphql.Response{Errors: gqlerror.List{codedError(stxgraph.EUNAVAILABLE, "the request ended before the query started")}}
	}
	defer a.leave()
	return next(ctx)
}

// enter waits for a slot, counting the wait.
func (a *admission) enter(ctx context.Context) error {
	start := time.Now()
	a.waiting.Add(1)
	err := a.slots.Acquire(ctx, 1)
	a.waiting.Add(-1)
	a.waited.Add(int64(time.Since(start)))
	if err != nil {
		a.unstarted.Add(1)
		return err
	}
	a.running.Add(1)
	return nil
}

func (a *admission) leave() {
	a.running.Add(-1)
	a.slots.Release(1)
}

// register has the registry report the admission's figures, each read when scraped.
func (a *admission) register(registry *prometheus.Registry) {
	gauge := func(name, help string, v *atomic.Int64) {
		registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) }))
	}
	gauge("stxgraph_operations_waiting", "GraphQL operations waiting to start (REST paths' included).", &a.waiting)
	gauge("stxgraph_operations_running", "GraphQL operations executing (REST paths' included).", &a.running)
	registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "stxgraph_operations_wait_seconds_total",
			Help: "Time GraphQL operations waited to start."},
			func() float64 { return time.Duration(a.waited.Load()).Seconds() }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "stxgraph_operations_unstarted_total",
			Help: "GraphQL operations whose request or time limit ended before they could start."},
			func() float64 { return float64(a.unstarted.Load()) }))
}
