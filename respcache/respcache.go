// Package respcache keeps finished API answers in memory so that a read repeated at the same
// chain state is computed once. Entries are keyed by the request and the state it was answered
// at; the whole cache is dropped whenever ingestion announces a change, and its size is bounded
// by a byte budget, least recently used out first.
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
	gen    uint64
}

// Cache is an LRU of answers within a byte budget. A nil *Cache caches nothing.
type Cache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	gen    uint64 // advanced by Invalidate; entries of older generations are never served
	order  *list.List
	items  map[string]*list.Element

	hits, misses, evictions atomic.Int64
}

// New returns a cache holding at most budget bytes, or nil (no caching) when budget <= 0.
func New(budget int64) *Cache {
	if budget <= 0 {
		return nil
	}
	return &Cache{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

// Generation is the chain state generation an answer computed from now on belongs to; pass it
// to Put, so an answer whose computation straddled a change is dropped rather than stored as
// current.
func (c *Cache) Generation() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Get returns the answer stored under key at the current generation.
func (c *Cache) Get(key string) (Answer, bool) {
	if c == nil {
		return Answer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok || el.Value.(*entry).gen != c.gen {
		c.misses.Add(1)
		return Answer{}, false
	}
	c.order.MoveToFront(el)
	c.hits.Add(1)
	return el.Value.(*entry).answer, true
}

// Put stores a under key if it was computed at generation gen and that is still current, then
// evicts the least recently used entries beyond the budget (an answer larger than the whole
// budget is not stored).
func (c *Cache) Put(key string, gen uint64, a Answer) {
	if c == nil {
		return
	}
	size := int64(len(key)+len(a.Body)+len(a.ETag)+len(a.ContentType)) + entryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen || size > c.budget {
		return
	}
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
	c.items[key] = c.order.PushFront(&entry{key: key, answer: a, size: size, gen: gen})
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

// Invalidate drops every answer: the chain tip or the mempool changed.
func (c *Cache) Invalidate() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.order.Init()
	clear(c.items)
	c.used = 0
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
