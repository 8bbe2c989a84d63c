package loaders

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"
)

// Deterministic batching. gqlgen resolves each field with a resolver, and each list item, in a
// goroutine of its own; a loader that waited a fixed time for its keys lost the siblings a loaded
// machine had not scheduled yet, and paid one more statement for each. Instead, a request's
// pending batches are dispatched the moment no field of the operation can add a key. The
// scheduler counts tokens, one for every field that is running its resolver or will start
// without waiting for a batch. Who grants them is the executor's business (server.Batching
// follows how gqlgen orders the fields of an object and drives an Operation); the loaders only
// take them back and give them again:
//
//   - a field keeps its token while its resolver runs; before giving it back, the executor grants
//     the first fields of each object of its result, so the gap between a parent's return and its
//     children's start is covered although their goroutines do not exist yet;
//   - a resolver that waits on a loader gives its token back, and the batch that answers it grants
//     the token again before any waiter wakes, so a woken resolver cannot find the count at zero
//     because another one has not been scheduled yet.
//
// When the count drops to zero every loader with pending keys is flushed. For what the count
// cannot see (a resolver that panicked, a result it could not type, a field no operation
// counts) the scheduler flushes once its tokens have not moved for the loaders' wait: an idle
// bound, not one from the first key, so a loaded machine that is slow to schedule a wide level
// keeps collecting it into one batch as long as the level makes progress. That costs latency and
// never a wrong answer.

// scheduler counts the tokens of one request's operations and flushes its loaders at zero.
type scheduler struct {
	mu       sync.Mutex
	tokens   int
	flushers []func()

	wait     time.Duration
	timer    *time.Timer // armed while keys may be pending; nil when idle
	activity uint64      // token moves, so the timer can tell progress from a stall
	seen     uint64      // activity when the timer was last armed
	idle     int         // waits in a row without activity
	ops      int         // operations begun and not ended
}

// opIdleWaits is how many idle waits an operation's batches wait before the scheduler assumes a
// miscount: a request starved of CPU by its neighbours makes no progress for a while without
// being stuck, and flushing it then would split its level into several statements.
const opIdleWaits = 8

// arm starts the idle bound for a key just asked for, unless it runs already.
func (s *scheduler) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer == nil {
		s.seen, s.idle = s.activity, 0
		s.timer = time.AfterFunc(s.wait, s.expire)
	}
}

// expire flushes when the tokens have not moved for a whole wait (opIdleWaits of them while an
// operation counts tokens); otherwise it waits again.
func (s *scheduler) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.activity != s.seen {
		s.seen, s.idle = s.activity, 0
	} else {
		s.idle++
	}
	if s.idle == 0 || (s.ops > 0 && s.idle < opIdleWaits) {
		s.timer.Reset(s.wait)
		return
	}
	s.timer = nil
	s.flushLocked()
}

// batchWait is the dataloaders' own bound, far behind the scheduler's: it only matters if the
// scheduler's timer could not run.
func batchWait(wait time.Duration) time.Duration { return 4 * opIdleWaits * wait }

// Operation is one operation's (or subscription event's) share of its request's tokens.
type Operation struct {
	s         *scheduler
	ctx       context.Context
	tokens    int // guarded by s.mu
	stopFlush func() bool
}

// Begin starts an operation on the scheduler of the loaders ctx carries and returns the context
// its resolvers must run under, so that their waits are counted. Without loaders in ctx it
// returns ctx and a nil Operation. Every Operation must be ended.
func Begin(ctx context.Context) (context.Context, *Operation) {
	l, ok := ctx.Value(ctxKey{}).(*Loaders)
	if !ok {
		return ctx, nil
	}
	op := &Operation{s: l.sched, ctx: ctx}
	l.sched.mu.Lock()
	l.sched.ops++
	l.sched.mu.Unlock()
	// A cancelled or timed-out operation dispatches every pending batch at once, so its waiting
	// resolvers end now (their statements fail on the cancelled context) rather than when the
	// count or the wait would have dispatched them.
	op.stopFlush = context.AfterFunc(ctx, l.sched.flush)
	return context.WithValue(ctx, opKey{}, op), op
}

// Add moves op's tokens by n (a grant when positive) and flushes every loader of the request
// when it has none left. The flush happens under the scheduler's lock, so a batch returning
// meanwhile cannot wake a resolver whose new keys this flush would then send alone.
func (op *Operation) Add(n int) {
	op.s.mu.Lock()
	defer op.s.mu.Unlock()
	op.s.addLocked(op, n)
}

// End takes back what a miscount left, so that it cannot hold up the request's next operation.
func (op *Operation) End() {
	op.stopFlush()
	op.s.mu.Lock()
	defer op.s.mu.Unlock()
	if op.tokens != 0 {
		slog.Debug("batching: operation ended with tokens left; its loaders waited for their timer", "tokens", op.tokens)
	}
	op.s.ops--
	op.s.addLocked(op, -op.tokens)
}

func (s *scheduler) addLocked(op *Operation, n int) {
	op.tokens += n
	s.tokens += n
	s.activity++
	if n < 0 && (s.tokens <= 0 || op.ctx.Err() != nil) {
		s.flushLocked()
	}
}

// flushLocked dispatches every pending batch of the request.
func (s *scheduler) flushLocked() {
	for _, flush := range s.flushers {
		flush()
	}
}

func (s *scheduler) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked()
}

type opKey struct{}

func operationOf(ctx context.Context) *Operation {
	op, _ := ctx.Value(opKey{}).(*Operation)
	return op
}

// Loader is a dataloader whose waits the request's scheduler counts. Outside an Operation
// (tests, direct calls) it batches by its wait alone. A request has every loader and most use
// one or two, so the dataloader behind one is made at its first key.
type Loader[K comparable, V any] struct {
	fn     dataloader.BatchFunc[K, V]
	s      *scheduler               // the request's, from its first key on
	inner  *dataloader.Loader[K, V] // guarded by s.mu; nil until the first key
	keys   map[K]*keyState          // guarded by s.mu
	primed map[K]V                  // guarded by s.mu: answers another batch read (prime)
}

// keyState is what the scheduler knows of one key: whether its batch has returned, and the
// operations whose resolvers wait for it.
type keyState struct {
	done    bool
	waiters []*Operation
}

// inputCapacity is the buffer of the channel that hands a batch its keys: the library's default
// (1000) allocated 8 KB for every batch, most of which carry one key, and the batch's goroutine
// drains the channel as keys come.
const inputCapacity = 16

func newLoader[K comparable, V any](fn dataloader.BatchFunc[K, V]) Loader[K, V] {
	return Loader[K, V]{fn: fn}
}

// Load asks for key; the thunk waits for its batch. ctx carries the request's loaders, l among
// them (For).
func (l *Loader[K, V]) Load(ctx context.Context, key K) dataloader.Thunk[V] {
	op := operationOf(ctx)
	s := For(ctx).sched
	s.mu.Lock()
	if v, ok := l.primed[key]; ok {
		s.mu.Unlock()
		return func() (V, error) { return v, nil }
	}
	if l.inner == nil {
		l.s = s
		l.inner = dataloader.NewBatchedLoader(l.granting(l.fn), dataloader.WithWait[K, V](batchWait(s.wait)),
			dataloader.WithBatchCapacity[K, V](1000), dataloader.WithInputCapacity[K, V](inputCapacity))
		l.keys = map[K]*keyState{}
		s.flushers = append(s.flushers, l.inner.Flush)
	}
	inner := l.inner
	st := l.keys[key]
	if st == nil {
		st = &keyState{}
		l.keys[key] = st
	}
	s.mu.Unlock()
	thunk := inner.Load(ctx, key)
	s.arm()
	return func() (V, error) {
		l.block(op, st)
		return thunk()
	}
}

// prime answers key with v for the rest of the request: a batch of another loader read it
// with its own rows, and the resolvers that ask for it need not wait for a batch of their own.
func (l *Loader[K, V]) prime(ctx context.Context, key K, v V) {
	s := For(ctx).sched
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.primed == nil {
		l.primed = map[K]V{}
	}
	l.primed[key] = v
}

// primedFor reports whether l answers already (prime) the key of each item that has one: loading
// those keys waits for no batch. key gives an item's key, and false for an item that needs none.
func primedFor[K comparable, V, T any](ctx context.Context, l *Loader[K, V], items []T, key func(T) (K, bool)) bool {
	s := For(ctx).sched
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range items {
		if k, ok := key(it); ok {
			if _, primed := l.primed[k]; !primed {
				return false
			}
		}
	}
	return true
}

// LoadMany asks for keys (in one batch, unless it outgrows the batch capacity).
func (l *Loader[K, V]) LoadMany(ctx context.Context, keys []K) dataloader.ThunkMany[V] {
	thunks := make([]dataloader.Thunk[V], len(keys))
	for i, k := range keys {
		thunks[i] = l.Load(ctx, k)
	}
	return func() ([]V, []error) {
		data := make([]V, len(keys))
		var errs []error
		for i, thunk := range thunks {
			v, err := thunk()
			data[i] = v
			if err != nil && errs == nil {
				errs = make([]error, len(keys))
			}
			if err != nil {
				errs[i] = err
			}
		}
		return data, errs
	}
}

// block gives op's token back while its resolver waits for a key whose batch has not returned.
func (l *Loader[K, V]) block(op *Operation, st *keyState) {
	if op == nil {
		return
	}
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if st.done {
		return
	}
	st.waiters = append(st.waiters, op)
	l.s.addLocked(op, -1)
}

// granting wraps a batch function so that, before dataloader wakes the waiters, each gets its
// token back (also when fn panics: dataloader recovers and wakes them with the error). A batch
// of a request that has ended (client gone, timed out) runs no statement: the scheduler then
// dispatches every key as soon as it is asked for, so the rest of that request's reads would
// each cost a statement of its own, for nobody.
func (l *Loader[K, V]) granting(fn dataloader.BatchFunc[K, V]) dataloader.BatchFunc[K, V] {
	return func(ctx context.Context, keys []K) []*dataloader.Result[V] {
		defer l.grant(keys)
		if err := ctx.Err(); err != nil {
			return failed[V](len(keys), err)
		}
		return fn(ctx, keys)
	}
}

func (l *Loader[K, V]) grant(keys []K) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	for _, k := range keys {
		st := l.keys[k]
		st.done = true
		for _, op := range st.waiters {
			l.s.addLocked(op, 1)
		}
		st.waiters = nil
	}
}
