package respcache

import (
	"fmt"
	"strings"
	"testing"
)

func answer(n int) Answer { return Answer{Body: []byte(strings.Repeat("x", n)), ETag: "t"} }

// state is a chain state that tests move by hand.
type state struct {
	version uint64
	live    bool
}

func (s *state) Version() (uint64, bool) { return s.version, s.live }

func TestEvictsLeastRecentlyUsedBeyondBudget(t *testing.T) {
	size := int64(len("k0")+100+len("t")) + entryOverhead
	c := New(3*size, &state{version: 7, live: true})
	for i := range 3 {
		c.Put(fmt.Sprintf("k%d", i), 7, answer(100))
	}
	if _, ok := c.Get("k0", 7); !ok { // k0 is now the most recently used
		t.Fatal("k0 missing within budget")
	}
	c.Put("k3", 7, answer(100))
	if _, ok := c.Get("k1", 7); ok {
		t.Error("k1, the least recently used, survived a put beyond the budget")
	}
	for _, k := range []string{"k0", "k2", "k3"} {
		if _, ok := c.Get(k, 7); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if s := c.Stats(); s.Bytes > 3*size || s.Entries != 3 || s.Evictions != 1 {
		t.Errorf("stats %+v; want 3 entries within %d bytes, 1 eviction", s, 3*size)
	}
	c.Put("huge", 7, answer(int(4*size)))
	if _, ok := c.Get("huge", 7); ok {
		t.Error("an answer larger than the budget was stored")
	}
}

func TestAnswersLiveOnlyAtTheirVersion(t *testing.T) {
	st := &state{version: 1, live: true}
	c := New(1<<20, st)
	v, ok := c.Version()
	if !ok || v != 1 {
		t.Fatalf("version %d %v; want 1, live", v, ok)
	}
	c.Put("a", v, answer(10))
	if _, ok := c.Get("a", v); !ok {
		t.Fatal("answer of the current version not served")
	}
	st.version = 2
	if _, ok := c.Get("a", v); ok {
		t.Error("answer served after the version moved")
	}
	// An answer computed before the change and stored after it belongs to the old state.
	c.Put("b", v, answer(10))
	if _, ok := c.Get("b", v); ok {
		t.Error("answer of an earlier version stored")
	}
	c.Put("b", 2, answer(10))
	if got, ok := c.Get("b", 2); !ok || len(got.Body) != 10 {
		t.Errorf("current answer: %v %v", got, ok)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes == 0 {
		t.Errorf("stats %+v; the old version's answer should be gone", s)
	}
	// While changes may go unheard nothing is served or kept.
	st.live = false
	if _, ok := c.Version(); ok {
		t.Error("version reported usable while not live")
	}
	if _, ok := c.Get("b", 2); ok {
		t.Error("answer served while not live")
	}
	c.Put("c", 2, answer(10))
	st.live = true
	if _, ok := c.Get("c", 2); ok {
		t.Error("answer computed while not live was kept")
	}
}

func TestNilCacheCachesNothing(t *testing.T) {
	for _, c := range []*Cache{New(0, &state{live: true}), New(1<<20, nil)} {
		if _, ok := c.Version(); ok {
			t.Error("disabled cache offers a version")
		}
		c.Put("a", 0, answer(1))
		if _, ok := c.Get("a", 0); ok {
			t.Error("disabled cache served an answer")
		}
	}
}
