package respcache

import (
	"fmt"
	"strings"
	"testing"
)

func answer(n int) Answer { return Answer{Body: []byte(strings.Repeat("x", n)), ETag: "t"} }

func TestEvictsLeastRecentlyUsedBeyondBudget(t *testing.T) {
	size := int64(len("k0")+100+len("t")) + entryOverhead
	c := New(3 * size)
	for i := range 3 {
		c.Put(fmt.Sprintf("k%d", i), c.Generation(), answer(100))
	}
	if _, ok := c.Get("k0"); !ok { // k0 is now the most recently used
		t.Fatal("k0 missing within budget")
	}
	c.Put("k3", c.Generation(), answer(100))
	if _, ok := c.Get("k1"); ok {
		t.Error("k1, the least recently used, survived a put beyond the budget")
	}
	for _, k := range []string{"k0", "k2", "k3"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if s := c.Stats(); s.Bytes > 3*size || s.Entries != 3 || s.Evictions != 1 {
		t.Errorf("stats %+v; want 3 entries within %d bytes, 1 eviction", s, 3*size)
	}
	c.Put("huge", c.Generation(), answer(int(4*size)))
	if _, ok := c.Get("huge"); ok {
		t.Error("an answer larger than the budget was stored")
	}
}

func TestInvalidateDropsAnswersAndLateWrites(t *testing.T) {
	c := New(1 << 20)
	gen := c.Generation()
	c.Put("a", gen, answer(10))
	c.Invalidate()
	if _, ok := c.Get("a"); ok {
		t.Error("answer served after invalidation")
	}
	// An answer computed before the change and stored after it belongs to the old state.
	c.Put("b", gen, answer(10))
	if _, ok := c.Get("b"); ok {
		t.Error("answer of an earlier generation stored")
	}
	c.Put("b", c.Generation(), answer(10))
	if got, ok := c.Get("b"); !ok || len(got.Body) != 10 {
		t.Errorf("current answer: %v %v", got, ok)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestNilCacheCachesNothing(t *testing.T) {
	var c *Cache = New(0)
	c.Put("a", c.Generation(), answer(1))
	if _, ok := c.Get("a"); ok {
		t.Error("disabled cache served an answer")
	}
	c.Invalidate()
}
