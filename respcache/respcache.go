// Package respcache keeps finished API answers in memory so that a read repeated at the same
// chain state is computed once and then costs no statement at all. The state is the version the
// process's chain notices name (db.Listener.Version): an answer is kept under the version read
// before computing it, only if that version is still current when it is done, and served only
// at that version; entries of older versions are dropped, and the size is bounded by a byte
// budget, least recently used out first.
package respcache

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// Answer is one cached response.
type Answer struct {
	Body        []byte
	ETag        string
	ContentType string
}

// entryOverhead approximates what an entry costs beyond its key and answer (list element, map
// slot, headers), so a budget holds even for tiny answers.
const entryOverhead = 128

type entry struct {
	key    string
	answer Answer
	size   int64
}

// Versions names the chain state answers are read at: a version that moves whenever the data
// may have changed, and whether that is known at all (live); nothing is served or kept while it
// is not.
type Versions interface {
	Version() (version uint64, live bool)
}

// Cache is an LRU of the answers of one chain state within a byte budget. A nil *Cache caches
// nothing.
type Cache struct {
	versions Versions

	mu      sync.Mutex
	budget  int64
	used    int64
	version uint64 // the state the entries belong to
	order   *list.List
	items   map[string]*list.Element

	hits, misses, evictions atomic.Int64
}

// New returns a cache of the answers at versions' state holding at most budget bytes, or nil
// (no caching) when budget <= 0 or nothing names the state.
func New(budget int64, versions Versions) *Cache {
	if budget <= 0 || versions == nil {
		return nil
	}
	return &Cache{versions: versions, budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

// Version is the state an answer computed from now on is read at; pass it to Get and Put. ok is
// false when no answer may be served or kept now.
func (c *Cache) Version() (version uint64, ok bool) {
	if c == nil {
		return 0, false
	}
	return c.versions.Version()
}

// Get returns the answer stored under key if it was read at version, which is still current.
func (c *Cache) Get(key string, version uint64) (Answer, bool) {
	if c == nil {
		return Answer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok || c.version != version || !c.current(version) {
		c.misses.Add(1)
		return Answer{}, false
	}
	c.order.MoveToFront(el)
	c.hits.Add(1)
	return el.Value.(*entry).answer, true
}

// current reports whether version is still the live state.
func (c *Cache) current(version uint64) bool {
	now, live := c.versions.Version()
	return live && now == version
}

// Put stores a under key if it was computed at version and that is still current (an answer
// whose computation straddled a change is dropped), then evicts the least recently used entries
// beyond the budget (an answer larger than the whole budget is not stored).
func (c *Cache) Put(key string, version uint64, a Answer) {
	if c == nil {
		return
	}
	size := int64(len(key)+len(a.Body)+len(a.ETag)+len(a.ContentType)) + entryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.budget || !c.current(version) {
		return
	}
	if version != c.version {
		// The first answer of a new state: the old state's are never served again.
		c.version = version
		c.order.Init()
		clear(c.items)
		c.used = 0
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

// Stats are the cache's counters since it was made.
type Stats struct {
	Hits, Misses, Evictions int64
	Entries                 int
	Bytes                   int64
}

// Stats reports the counters and the current size.
func (c *Cache) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(), Entries: len(c.items), Bytes: c.used}
}
