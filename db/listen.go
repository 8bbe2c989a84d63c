package db

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Notice kinds sent on EventsChannel.
const (
	NoticeBlock      = "block"
	NoticeMicroblock = "microblock"
	NoticeMempool    = "mempool"
	// NoticeBurnBlock is a burn block applied, NoticeMempoolDrop transactions the node dropped
	// from its mempool: no subscription reports them, but they change what reads answer.
	NoticeBurnBlock   = "burn_block"
	NoticeMempoolDrop = "mempool_drop"
	// NoticeBrc20 is a BRC-20 block applied or rolled back, heard on Brc20Channel.
	NoticeBrc20 = "brc20"
	// NoticeReorg is a fork that became the canonical chain: the blocks that left it and those
	// that joined it.
	NoticeReorg = "reorg"
)

// ReorgBlock names a block in a reorg notice.
type ReorgBlock struct {
	Height         int32      `json:"block_height"`
	IndexBlockHash noticeHash `json:"index_block_hash"`
}

// Notice is one announcement of committed chain data, as ingestion sends it on EventsChannel.
type Notice struct {
	// Seq is the notice's place in the notice log: notices are numbered in commit order.
	Seq              int64
	Kind             string
	IndexBlockHash   []byte       // block
	BlockHeight      int32        // block, microblock
	Canonical        bool         // block
	MicroblockHashes [][]byte     // microblock
	TxIDs            [][]byte     // mempool
	Brc20            Brc20Notice  // brc20
	RolledBack       []ReorgBlock // reorg
	Restored         []ReorgBlock // reorg
}

// noticeJSON is a notice's payload on EventsChannel, as ingestion writes it (Writer.notify)
// and ParseNotice reads it. Fields a kind does not use are left out of the payload.
type noticeJSON struct {
	Seq              int64        `json:"seq,omitempty"` // added by the notice log
	Kind             string       `json:"kind"`
	IndexBlockHash   noticeHash   `json:"index_block_hash,omitempty"`
	BlockHeight      int32        `json:"block_height,omitempty"`
	Canonical        bool         `json:"canonical,omitempty"`
	MicroblockHashes []noticeHash `json:"microblock_hashes,omitempty"`
	TxIDs            []noticeHash `json:"tx_ids,omitempty"`
	RolledBack       []ReorgBlock `json:"rolled_back,omitempty"`
	Restored         []ReorgBlock `json:"restored,omitempty"`
}

// noticeHash is a hash in a notice, written by Hex ("0x" and hex); "" reads as nil.
type noticeHash []byte

func (h noticeHash) MarshalText() ([]byte, error) { return []byte(Hex(h)), nil }

func (h *noticeHash) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = nil
		return nil
	}
	b, err := hex.DecodeString(strings.TrimPrefix(string(text), "0x"))
	if err != nil {
		return fmt.Errorf("notice hash %q: %w", text, err)
	}
	*h = b
	return nil
}

// ParseNotice decodes a notification payload.
func ParseNotice(payload string) (Notice, error) {
	var j noticeJSON
	if err := json.Unmarshal([]byte(payload), &j); err != nil {
		return Notice{}, fmt.Errorf("notice %q: %w", payload, err)
	}
	return Notice{Seq: j.Seq, Kind: j.Kind, IndexBlockHash: j.IndexBlockHash, BlockHeight: j.BlockHeight, Canonical: j.Canonical,
		MicroblockHashes: hashBytes(j.MicroblockHashes), TxIDs: hashBytes(j.TxIDs), RolledBack: j.RolledBack, Restored: j.Restored}, nil
}

// hashBytes converts a notice's hashes (never nil, as a statement may take them as an array).
func hashBytes(hs []noticeHash) [][]byte {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
}

// subscriberBuffer is how many notices a subscriber may lag behind before it misses some.
const subscriberBuffer = 256

// Listener holds the process's one LISTEN connection on EventsChannel and fans its notices out
// to in-process subscribers; every API process behind a load balancer runs its own, so each
// hears every commit.
type Listener struct {
	mu   sync.Mutex
	subs map[chan Notice]struct{}
	done bool

	store *Store
	ln    *pgdriver.Listener
	// lastSeq is the last notice announced, heard or read from the notice log; state orders
	// announcements.
	state   sync.Mutex
	lastSeq int64

	// deliver passes on each notice heard or caught up: publish, or hold when reads come from
	// a replica.
	deliver func(Notice)
	rep     *Replication
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

// moveVersion publishes the version change makes of the current one.
func (l *Listener) moveVersion(change func(*StateVersion)) {
	l.vmu.Lock()
	defer l.vmu.Unlock()
	v := *l.version.Load()
	change(&v)
	l.version.Store(&v)
}

// heard moves the part of the version a notice of kind is about.
func (v *StateVersion) heard(kind string) {
	switch kind {
	case NoticeBlock, NoticeMicroblock, NoticeBurnBlock, NoticeReorg:
		v.Chain++
	case NoticeMempool, NoticeMempoolDrop:
		v.Mempool++
	case NoticeBrc20:
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
	})
}

// maxHeld bounds the notices kept while the replica lags; past it the oldest are dropped.
const maxHeld = 10000

// recheckDelay is when a catch-up reads once more after the connection is back.
const recheckDelay = 2 * time.Second

// logPage is how many notices one read of the notice log takes.
const logPage = 1000

// Listen starts listening on EventsChannel and Brc20Channel until ctx ends. NOTIFY does not
// queue: notices sent while the connection is down are lost. So every notice is also kept in
// the notice log, numbered in commit order, and the listener announces each number once and in
// order: what it did not hear (a lost connection, a gap in the numbers) it reads from the log.
func (s *Store) Listen(ctx context.Context) (*Listener, error) { return listen(ctx, s, nil) }

// Listen listens on the primary (NOTIFY is not replicated) and publishes each notice once the
// replica has replayed the commit that sent it.
func (r *Replication) Listen(ctx context.Context) (*Listener, error) {
	return listen(ctx, r.Primary, r)
}

func listen(ctx context.Context, s *Store, rep *Replication) (*Listener, error) {
	ln := pgdriver.NewListener(s.DB)
	if err := ln.Listen(ctx, EventsChannel, Brc20Channel); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on %s and %s: %w", EventsChannel, Brc20Channel, err)
	}
	l := &Listener{subs: map[chan Notice]struct{}{}, store: s, ln: ln, rep: rep, wake: make(chan struct{}, 1)}
	l.version.Store(&StateVersion{})
	l.deliver = l.publish
	if rep != nil {
		l.deliver = l.hold
		go l.release(ctx)
	}
	_, last, err := s.NoticeRange(ctx)
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
			})
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

// parseChannelNotice decodes a payload heard on, or kept for, channel.
func parseChannelNotice(channel, payload string) (Notice, error) {
	if channel == Brc20Channel {
		b, err := ParseBrc20Notice(payload)
		return Notice{Seq: b.Seq, Kind: NoticeBrc20, BlockHeight: b.Height, Brc20: b}, err
	}
	return ParseNotice(payload)
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
	return l.store.EachNoticeAfter(ctx, l.lastSeq, until, func(n Notice) bool {
		l.lastSeq = n.Seq
		l.deliver(n)
		return true
	})
}

// NoticeRange gives the numbers of the oldest and the newest notice the log keeps, 0 and 0 when
// it is empty.
func (s *Store) NoticeRange(ctx context.Context) (first, last int64, err error) {
	err = s.DB.QueryRowContext(ctx, "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM notices").Scan(&first, &last)
	return first, last, err
}

// EachNoticeAfter hands each logged notice numbered above after and below until (0: no bound) to
// each, in order, reading the log a page at a time, until each returns false.
func (s *Store) EachNoticeAfter(ctx context.Context, after, until int64, each func(Notice) bool) error {
	for {
		page, err := s.noticesAfter(ctx, after, until, logPage)
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

// noticesAfter reads up to limit logged notices numbered above after and below until (0: no
// bound), in order.
func (s *Store) noticesAfter(ctx context.Context, after, until int64, limit int) ([]Notice, error) {
	if until == 0 {
		until = math.MaxInt64
	}
	rows, err := s.DB.QueryContext(ctx, `SELECT channel, payload FROM notices
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

// insertNotice adds a notice (channel, payload) to the notice log, whose trigger numbers it and
// sends it on commit.
const insertNotice = "INSERT INTO notices (channel, payload) VALUES (?, ?)"

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
			err := l.awaitReplica(ctx)
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

func (l *Listener) awaitReplica(ctx context.Context) error {
	target, err := l.rep.CommittedLSN(ctx)
	if err != nil {
		return err
	}
	return l.rep.WaitReplayed(ctx, target)
}

// publish hands n to every subscriber without waiting: one slow WebSocket client must not hold
// up the others, so a subscriber whose buffer is full misses n.
func (l *Listener) publish(n Notice) {
	l.moveVersion(func(v *StateVersion) { v.heard(n.Kind) })
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
