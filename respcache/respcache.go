// Package respcache keeps finished API answers in memory so that a read repeated at the same
// chain state is computed once and then costs no statement at all. The state is named part by
// part (the chain, the mempool, BRC-20) by versions that move whenever ingestion announces a
// change to that part: an answer is kept under the versions of the parts it reads, as they were
// before computing it, only if they are still current when it is done, and served only while
// they stay. The size is bounded by a byte budget, least recently used out first, which also
// ages out the answers of versions that have moved on. Identical requests that arrive while an
// answer is being computed wait for it rather than computing it again (Do), so a cold page that
// many clients open at once, as after every new block, costs one computation.
package respcache

import (
	"container/list"
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/stxgraph/stxgraph/db/notices"
)

// Answer is one cached response.
type Answer struct {
	Body        []byte
	ETag        string
	ContentType string
}

// Parts names the parts of the chain state an answer reads.
type Parts uint8

const (
	// Chain is blocks, microblocks and burn blocks.
	Chain Parts = 1 << iota
	Mempool
	Brc20
)

// Reads is what an answer reads: parts of the chain state and, when all it reads of the mempool
// is the pending state of some principals, their names (Pending). Such an answer outlives the
// mempool changes that name none of them (notices.Notice.Pending).
type Reads struct {
	Parts   Parts
	Pending []string
}

// Versions names the current chain state, part by part (notices.Listener does, from the notices);
// nothing is served or kept while it is not live.
type Versions interface {
	Version() notices.StateVersion
	// PendingVersion is the version of the pending state of the principals
	// named: it moves with each mempool change that may touch one of them.
	PendingVersion(names []string) uint64
}

// narrow is at with its mempool version that of the pending state r reads, when r names it.
func (c *Cache) narrow(r Reads, at notices.StateVersion) notices.StateVersion {
	if r.Pending != nil && r.Parts&Mempool != 0 {
		at.Mempool = c.versions.PendingVersion(r.Pending)
	}
	return at
}

// stamp names the versions of the parts p at s.
func (p Parts) stamp(s notices.StateVersion) string {
	b := make([]byte, 0, 48)
	for _, part := range []struct {
		p Parts
		v uint64
	}{{Chain, s.Chain}, {Mempool, s.Mempool}, {Brc20, s.Brc20}} {
		if p&part.p != 0 {
			b = strconv.AppendUint(append(b, '.'), part.v, 10)
		} else {
			b = append(b, '.')
		}
	}
	return string(b)
}

// same reports whether the parts p have the same versions at a and b.
func (p Parts) same(a, b notices.StateVersion) bool {
	return (p&Chain == 0 || a.Chain == b.Chain) && (p&Mempool == 0 || a.Mempool == b.Mempool) &&
		(p&Brc20 == 0 || a.Brc20 == b.Brc20)
}

// entryOverhead approximates what an entry costs beyond its key and answer (list element, map
// slot, headers), so a budget holds even for tiny answers.
const entryOverhead = 128

type entry struct {
	key    string
	answer Answer
	size   int64
}

// Cache is an LRU of answers within a byte budget. A nil *Cache caches nothing.
type Cache struct {
	versions Versions

	mu     sync.Mutex
	budget int64
	used   int64
	order  *list.List
	items  map[string]*list.Element
	// flights are the answers being computed, by stamped key.
	flights map[string]*flight

	hits, misses, evictions, shared atomic.Int64
}

// flight is one computation of an answer that identical requests wait for.
type flight struct {
	done   chan struct{}
	answer Answer
	ok     bool // the answer may be served to the waiters (and kept)
	// waiters counts the requests waiting for it; guarded by the cache's mu.
	waiters int
}

// New returns a cache of the answers at versions' state holding at most budget bytes, or nil
// (no caching) when budget <= 0 or nothing names the state.
func New(budget int64, versions Versions) *Cache {
	if budget <= 0 || versions == nil {
		return nil
	}
	return &Cache{versions: versions, budget: budget, order: list.New(), items: map[string]*list.Element{},
		flights: map[string]*flight{}}
}

// Version is the state an answer that reads r, computed from now on, is read at; pass it to Get,
// Put and Do with r. ok is false when no answer may be served or kept now.
func (c *Cache) Version(r Reads) (at notices.StateVersion, ok bool) {
	if c == nil {
		return notices.StateVersion{}, false
	}
	at = c.narrow(r, c.versions.Version())
	return at, at.Live
}

// current reports whether what r reads is still at the versions of at (narrowed), and live.
func (c *Cache) current(r Reads, at notices.StateVersion) bool {
	now := c.narrow(r, c.versions.Version())
	return now.Live && r.Parts.same(at, now)
}

// Get returns the answer stored under key for what it reads at at, if that is still at those
// versions.
func (c *Cache) Get(key string, reads Reads, at notices.StateVersion) (Answer, bool) {
	if c == nil {
		return Answer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(key+reads.Parts.stamp(at), reads, at)
}

func (c *Cache) getLocked(stamped string, reads Reads, at notices.StateVersion) (Answer, bool) {
	el, ok := c.items[stamped]
	if !ok || !c.current(reads, at) {
		c.misses.Add(1)
		return Answer{}, false
	}
	c.order.MoveToFront(el)
	c.hits.Add(1)
	return el.Value.(*entry).answer, true
}

// Do serves the answer under key for what it reads at at: the one kept, else the one an
// identical request is computing now (waiting for it while ctx lasts), else compute's, which says
// whether its answer may be served to others and kept (an error may not). shared reports an
// answer that compute did not make here; when the computation waited for fails, compute runs.
func (c *Cache) Do(ctx context.Context, key string, reads Reads, at notices.StateVersion, compute func() (Answer, bool)) (a Answer, shared bool) {
	if c == nil {
		a, _ = compute()
		return a, false
	}
	stamped := key + reads.Parts.stamp(at)
	c.mu.Lock()
	if a, ok := c.getLocked(stamped, reads, at); ok {
		c.mu.Unlock()
		return a, true
	}
	if f := c.flights[stamped]; f != nil {
		f.waiters++
		c.mu.Unlock()
		select {
		case <-f.done:
			if f.ok {
				c.shared.Add(1)
				return f.answer, true
			}
		case <-ctx.Done():
		}
		a, _ = compute()
		return a, false
	}
	f := &flight{done: make(chan struct{})}
	c.flights[stamped] = f
	c.mu.Unlock()
	defer func() { // also when compute panics: the waiters then compute for themselves
		c.mu.Lock()
		if f.ok {
			c.putLocked(stamped, reads, at, f.answer)
		}
		delete(c.flights, stamped)
		c.mu.Unlock()
		close(f.done)
	}()
	f.answer, f.ok = compute()
	return f.answer, false
}

// Put stores a under key if what it reads is still at the versions of at, which it was
// computed at (an answer whose computation straddled a change is dropped), then evicts the least
// recently used entries beyond the budget (an answer larger than the whole budget is not
// stored).
func (c *Cache) Put(key string, reads Reads, at notices.StateVersion, a Answer) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key+reads.Parts.stamp(at), reads, at, a)
}

func (c *Cache) putLocked(key string, reads Reads, at notices.StateVersion, a Answer) {
	size := int64(len(key)+len(a.Body)+len(a.ETag)+len(a.ContentType)) + entryOverhead
	if size > c.budget || !c.current(reads, at) {
		return
	}
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
	c.items[key] = c.order.PushFront(&entry{key: key, answer: a, size: size})
	c.used += size
	for c.used > c.budget {
		c.removeLocked(c.order.Back())
		c.evictions.Add(1)
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	e := el.Value.(*entry)
	c.order.Remove(el)
	delete(c.items, e.key)
	c.used -= e.size
}

// Stats are the cache's counters since it was made. Shared counts the answers served to a
// request from an identical one's computation; Waiting is how many requests wait for one now.
type Stats struct {
	Hits, Misses, Evictions, Shared int64
	Waiting                         int
	Entries                         int
	Bytes                           int64
}

// Stats reports the counters and the current size.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Shared: c.shared.Load(),
		Entries: len(c.items), Bytes: c.used}
	for _, f := range c.flights {
		st.Waiting += f.waiters
	}
	return st
}
