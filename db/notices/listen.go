package notices

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// subscriberBuffer is how many notices a subscriber may lag behind before it misses some.
const subscriberBuffer = 256

// Listener holds the process's one LISTEN connection on EventsChannel and fans its notices out
// to in-process subscribers; every API process behind a load balancer runs its own, so each
// hears every commit.
type Listener struct {
	mu   sync.Mutex
	subs map[chan Notice]struct{}
	done bool

	db *bun.DB
	ln *pgdriver.Listener
	// lastSeq is the last notice announced, heard or read from the notice log; state orders
	// announcements.
	state   sync.Mutex
	lastSeq int64

	// deliver passes on each notice heard or caught up: publish, or hold when reads come from
	// a replica.
	deliver func(Notice)
	replica Replica
	// queue holds the notices heard and not yet published; wake signals that it grew.
	queue []Notice
	wake  chan struct{}
	// held counts the notices heard and held until the replica replays them.
	held atomic.Int64
	// version is the chain state this process has heard of (see Version); vmu serializes its
	// writers. losses counts lost connections, so a late recheck of an earlier one cannot
	// declare the current one live.
	version atomic.Pointer[StateVersion]
	vmu     sync.Mutex
	losses  atomic.Uint64
	// pending are the mempool versions of the principals mempool notices name.
	pending pendingVersions
}

// StateVersion names the chain state this process has heard of, part by part. Each counter
// moves with every notice about its part (with a replica, once the replica has replayed the
// commit that sent it), and all of them whenever notices may have been missed, so an answer
// read at some versions stays exact while they stay. Live is false while notices may be missed:
// before LISTEN is surely in effect, and from a lost connection until its catch-up is done.
type StateVersion struct {
	Chain   uint64 // blocks, microblocks and burn blocks
	Mempool uint64
	Brc20   uint64
	Live    bool
}

// Version is the chain state this process has heard of.
func (l *Listener) Version() StateVersion { return *l.version.Load() }

// PendingVersion is the version of the pending state of the principals named: it moves with
// every mempool change that names one of them or names none (Notice.Pending), so an answer that
// reads only their pending transactions outlives the mempool's other changes.
func (l *Listener) PendingVersion(names []string) uint64 { return l.pending.version(names) }

// moveVersion publishes the version change makes of the current one. pending names what a
// change to the mempool touched (nil: anything).
func (l *Listener) moveVersion(change func(*StateVersion), pending []string) {
	l.vmu.Lock()
	defer l.vmu.Unlock()
	v := *l.version.Load()
	mempool := v.Mempool
	change(&v)
	if v.Mempool != mempool {
		l.pending.moved(v.Mempool, pending)
	}
	l.version.Store(&v)
}

// heard moves the part of the version a notice of kind is about. Blocks, microblocks and reorgs
// change the mempool too: they prune the transactions they mine and restore those they orphan.
func (v *StateVersion) heard(kind string) {
	switch kind {
	case KindBlock, KindMicroblock, KindReorg:
		v.Chain++
		v.Mempool++
	case KindBurnBlock:
		v.Chain++
	case KindMempool, KindMempoolDrop:
		v.Mempool++
	case KindBrc20:
		v.Brc20++
	default:
		v.all()
	}
}

// all moves every part.
func (v *StateVersion) all() { v.Chain, v.Mempool, v.Brc20 = v.Chain+1, v.Mempool+1, v.Brc20+1 }

// goLive declares the version live after recheckDelay, once LISTEN is surely in effect and the
// notices committed before it are read from the log, unless the connection was lost again
// meanwhile.
func (l *Listener) goLive(ctx context.Context) {
	losses := l.losses.Load()
	sleep(ctx, recheckDelay)
	if ctx.Err() != nil {
		return
	}
	if err := l.catchUp(ctx); err != nil {
		if ctx.Err() == nil {
			slog.Warn("chain notices: catching up after a lost connection failed", "err", err)
		}
		return
	}
	l.moveVersion(func(v *StateVersion) {
		if l.losses.Load() == losses {
			v.all()
			v.Live = true
		}
	}, nil)
}

// maxHeld bounds the notices kept while the replica lags; past it the oldest are dropped.
const maxHeld = 10000

// recheckDelay is when a catch-up reads once more after the connection is back.
const recheckDelay = 2 * time.Second

// logPage is how many notices one read of the notice log takes.
const logPage = 1000

// Replica is the streaming replica reads come from, when they do not come from the database the
// listener listens on (NOTIFY is not replicated).
type Replica interface {
	// AwaitCommitted returns once the replica has replayed every commit the primary had made
	// when it was called.
	AwaitCommitted(ctx context.Context) error
}

// Listen starts listening on EventsChannel and Brc20Channel of the database until ctx ends.
// NOTIFY does not queue: notices sent while the connection is down are lost. So every notice is
// also kept in the notice log, numbered in commit order, and the listener announces each number
// once and in order: what it did not hear (a lost connection, a gap in the numbers) it reads
// from the log. With a replica, each notice is published once the replica has replayed the
// commit that sent it; without, replica is nil.
func Listen(ctx context.Context, db *bun.DB, replica Replica) (*Listener, error) {
	ln := pgdriver.NewListener(db)
	if err := ln.Listen(ctx, EventsChannel, Brc20Channel); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s and %s: %w", EventsChannel, Brc20Channel, err)
	}
	l := &Listener{subs: map[chan Notice]struct{}{}, db: db, ln: ln, replica: replica, wake: make(chan struct{}, 1)}
	l.version.Store(&StateVersion{})
	l.deliver = l.publish
	if replica != nil {
		l.deliver = l.hold
		go l.release(ctx)
	}
	_, last, err := Range(ctx, db)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("read the notice log: %w", err)
	}
	l.lastSeq = last
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	go l.goLive(ctx)
	go l.run(ctx)
	return l, nil
}

func (l *Listener) run(ctx context.Context) {
	defer l.stop()
	lost := false
	for {
		if lost {
			// Listen reconnects when the connection is gone; only after LISTEN is back does the
			// catch-up read, so a notice committed in between is heard or read (or both: its
			// number drops the second).
			if err := l.ln.Listen(ctx, EventsChannel, Brc20Channel); err != nil {
				if ctx.Err() != nil {
					return
				}
				slog.Warn("chain notices: reconnecting", "err", err)
				sleep(ctx, time.Second)
				continue
			}
			if err := l.catchUp(ctx); err != nil {
				slog.Warn("chain notices: catching up after a lost connection failed", "err", err)
				sleep(ctx, time.Second)
				continue
			}
			lost = false
			// LISTEN takes effect once the server has read it, which the driver does not wait
			// for: read again a little later for a notice committed in that window, and only
			// then trust the notices again.
			go l.goLive(ctx)
		}
		channel, payload, err := l.ln.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			slog.Warn("chain notices: connection lost", "err", err)
			lost = true
			l.moveVersion(func(v *StateVersion) {
				l.losses.Add(1)
				v.all()
				v.Live = false
			}, nil)
			continue
		}
		n, err := parseChannelNotice(channel, payload)
		if err != nil {
			slog.Warn("ignoring malformed chain notice", "err", err)
			continue
		}
		if err := l.arrive(ctx, n); err != nil {
			slog.Warn("chain notices: reading missed notices failed", "err", err)
		}
	}
}

// arrive announces a notice heard live: after the notices numbered below it that were not
// heard (read from the log), and not at all when the log's catch-up announced it already. An
// unnumbered notice (sent without the log, as an ingesting process of an older version does
// during an upgrade) is passed on as heard.
func (l *Listener) arrive(ctx context.Context, n Notice) error {
	l.state.Lock()
	defer l.state.Unlock()
	if n.Seq == 0 {
		l.deliver(n)
		return nil
	}
	if n.Seq <= l.lastSeq {
		return nil
	}
	if n.Seq > l.lastSeq+1 {
		if err := l.readLog(ctx, n.Seq); err != nil {
			return err
		}
	}
	l.lastSeq = n.Seq
	l.deliver(n)
	return nil
}

// catchUp announces the notices committed since the last one announced.
func (l *Listener) catchUp(ctx context.Context) error {
	l.state.Lock()
	defer l.state.Unlock()
	return l.readLog(ctx, 0)
}

// readLog announces the logged notices after lastSeq and before until (0: all of them), in
// order. Called with state held.
func (l *Listener) readLog(ctx context.Context, until int64) error {
	return EachAfter(ctx, l.db, l.lastSeq, until, func(n Notice) bool {
		l.lastSeq = n.Seq
		l.deliver(n)
		return true
	})
}

// Range gives the numbers of the oldest and the newest notice the log of db keeps, 0 and 0 when
// it is empty.
func Range(ctx context.Context, db bun.IDB) (first, last int64, err error) {
	err = db.QueryRowContext(ctx, "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM notices").Scan(&first, &last)
	return first, last, err
}

// EachAfter hands each notice of the log of db numbered above after and below until (0: no
// bound) to each, in order, reading the log a page at a time, until each returns false.
func EachAfter(ctx context.Context, db bun.IDB, after, until int64, each func(Notice) bool) error {
	for {
		page, err := readAfter(ctx, db, after, until, logPage)
		if err != nil {
			return err
		}
		for _, n := range page {
			if !each(n) {
				return nil
			}
			after = n.Seq
		}
		if len(page) < logPage {
			return nil
		}
	}
}

// readAfter reads up to limit logged notices numbered above after and below until (0: no bound),
// in order.
func readAfter(ctx context.Context, db bun.IDB, after, until int64, limit int) ([]Notice, error) {
	if until == 0 {
		until = math.MaxInt64
	}
	rows, err := db.QueryContext(ctx, `SELECT channel, payload FROM notices
		WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?`, after, until, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Notice
	for rows.Next() {
		var channel, payload string
		if err := rows.Scan(&channel, &payload); err != nil {
			return nil, err
		}
		n, err := parseChannelNotice(channel, payload)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (l *Listener) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	for sub := range l.subs {
		close(sub)
		delete(l.subs, sub)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Held is how many notices the listener has heard and holds until the replica replays them.
func (l *Listener) Held() int { return int(l.held.Load()) }

// hold queues a notice for release.
func (l *Listener) hold(n Notice) {
	l.mu.Lock()
	if len(l.queue) >= maxHeld {
		slog.Warn("the replica lags too far behind: chain notice dropped", "kind", n.Kind)
		l.queue = l.queue[1:]
	} else {
		l.held.Add(1)
	}
	l.queue = append(l.queue, n)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// release publishes the held notices in the order heard, each batch once the replica has
// replayed the primary's WAL as far as it reached when the batch had been heard: every notice
// is sent at its commit, so that position lies past all of their commits.
func (l *Listener) release(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
		}
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		l.mu.Unlock()
		if len(batch) == 0 {
			continue
		}
		for {
			err := l.replica.AwaitCommitted(ctx)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			slog.Warn("cannot tell whether the replica has replayed the announced commits; retrying", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
		for _, n := range batch {
			l.publish(n)
		}
		l.held.Add(-int64(len(batch)))
	}
}

// publish hands n to every subscriber without waiting: one slow WebSocket client must not hold
// up the others, so a subscriber whose buffer is full misses n.
func (l *Listener) publish(n Notice) {
	l.moveVersion(func(v *StateVersion) { v.heard(n.Kind) }, n.Pending())
	l.mu.Lock()
	defer l.mu.Unlock()
	for sub := range l.subs {
		select {
		case sub <- n:
		default:
			slog.Warn("subscriber too slow, chain notice dropped", "kind", n.Kind)
		}
	}
}

// Subscribe returns the notices the listener hears from now on. NOTIFY reaches the listener
// asynchronously, so they may begin with some committed shortly before the call. The channel
// closes when ctx ends or the listener stops.
func (l *Listener) Subscribe(ctx context.Context) <-chan Notice {
	sub := make(chan Notice, subscriberBuffer)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		close(sub)
		return sub
	}
	l.subs[sub] = struct{}{}
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, ok := l.subs[sub]; ok {
			delete(l.subs, sub)
			close(sub)
		}
	}()
	return sub
}
