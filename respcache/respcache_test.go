package respcache

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/notices"
)

func answer(n int) Answer { return Answer{Body: []byte(strings.Repeat("x", n)), ETag: "t"} }

// state is a chain state that tests move by hand: pending are the pending versions of names, 0
// for those not set.
type state struct {
	s       notices.StateVersion
	pending map[string]uint64
}

func (s *state) Version() notices.StateVersion { return s.s }

func (s *state) PendingVersion(names []string) uint64 {
	var v uint64
	for _, n := range names {
		v = max(v, s.pending[n])
	}
	return v
}

func TestEvictsLeastRecentlyUsedBeyondBudget(t *testing.T) {
	at := notices.StateVersion{Chain: 7, Live: true}
	size := int64(len("k0")+len(Chain.stamp(at))+100+len("t")) + entryOverhead
	c := New(3*size, &state{s: at})
	for i := range 3 {
		c.Put(fmt.Sprintf("k%d", i), Reads{Parts: Chain}, at, answer(100))
	}
	if _, ok := c.Get("k0", Reads{Parts: Chain}, at); !ok { // k0 is now the most recently used
		t.Fatal("k0 missing within budget")
	}
	c.Put("k3", Reads{Parts: Chain}, at, answer(100))
	if _, ok := c.Get("k1", Reads{Parts: Chain}, at); ok {
		t.Error("k1, the least recently used, survived a put beyond the budget")
	}
	for _, k := range []string{"k0", "k2", "k3"} {
		if _, ok := c.Get(k, Reads{Parts: Chain}, at); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if s := c.Stats(); s.Bytes > 3*size || s.Entries != 3 || s.Evictions != 1 {
		t.Errorf("stats %+v; want 3 entries within %d bytes, 1 eviction", s, 3*size)
	}
	c.Put("huge", Reads{Parts: Chain}, at, answer(int(4*size)))
	if _, ok := c.Get("huge", Reads{Parts: Chain}, at); ok {
		t.Error("an answer larger than the budget was stored")
	}
}

// An answer lives while the parts it reads stay at their versions: a change to another part
// leaves it, a change to one it reads ends it, also for an answer computed across the change.
func TestAnswersLiveWhileTheirPartsStay(t *testing.T) {
	st := &state{s: notices.StateVersion{Chain: 1, Mempool: 1, Brc20: 1, Live: true}}
	c := New(1<<20, st)
	at, ok := c.Version(Reads{})
	if !ok || at != st.s {
		t.Fatalf("version %+v %v; want %+v, live", at, ok, st.s)
	}
	c.Put("chain", Reads{Parts: Chain}, at, answer(10))
	c.Put("both", Reads{Parts: Chain | Mempool}, at, answer(10))
	c.Put("brc20", Reads{Parts: Brc20}, at, answer(10))

	st.s.Mempool++
	now, _ := c.Version(Reads{})
	for _, tc := range []struct {
		key   string
		reads Parts
		kept  bool
	}{{"chain", Chain, true}, {"both", Chain | Mempool, false}, {"brc20", Brc20, true}} {
		if _, ok := c.Get(tc.key, Reads{Parts: tc.reads}, now); ok != tc.kept {
			t.Errorf("%s after a mempool change: served %v, want %v", tc.key, ok, tc.kept)
		}
	}
	// An answer computed before the change and stored after it belongs to the old state.
	c.Put("late", Reads{Parts: Chain | Mempool}, at, answer(10))
	if _, ok := c.Get("late", Reads{Parts: Chain | Mempool}, now); ok {
		t.Error("an answer read across a change was kept")
	}
	if _, ok := c.Get("late", Reads{Parts: Chain | Mempool}, at); ok {
		t.Error("an answer of an earlier version served")
	}
	c.Put("late", Reads{Parts: Chain | Mempool}, now, answer(10))
	if got, ok := c.Get("late", Reads{Parts: Chain | Mempool}, now); !ok || len(got.Body) != 10 {
		t.Errorf("current answer: %v %v", got, ok)
	}

	// While changes may go unheard nothing is served or kept.
	st.s.Live = false
	if _, ok := c.Version(Reads{}); ok {
		t.Error("version reported usable while not live")
	}
	if _, ok := c.Get("chain", Reads{Parts: Chain}, now); ok {
		t.Error("answer served while not live")
	}
	c.Put("dark", Reads{Parts: Chain}, now, answer(10))
	st.s.Live = true
	if _, ok := c.Get("dark", Reads{Parts: Chain}, now); ok {
		t.Error("answer computed while not live was kept")
	}
}

func TestNilCacheCachesNothing(t *testing.T) {
	live := notices.StateVersion{Live: true}
	for _, c := range []*Cache{New(0, &state{s: live}), New(1<<20, nil)} {
		if _, ok := c.Version(Reads{}); ok {
			t.Error("disabled cache offers a version")
		}
		c.Put("a", Reads{Parts: Chain}, live, answer(1))
		if _, ok := c.Get("a", Reads{Parts: Chain}, live); ok {
			t.Error("disabled cache served an answer")
		}
	}
}

// Identical requests that arrive while an answer is computed wait for it: one computation serves
// them all. When it fails (its answer may not be shared), each computes its own.
func TestIdenticalRequestsShareOneComputation(t *testing.T) {
	at := notices.StateVersion{Chain: 3, Live: true}
	for _, tc := range []struct {
		name     string
		ok       bool
		computed int64
	}{
		{"shared", true, 1},
		{"failed", false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(1<<20, &state{s: at})
			release := make(chan struct{})
			var computed atomic.Int64
			compute := func() (Answer, bool) {
				if computed.Add(1) == 1 {
					<-release // the first computation lasts until every request has arrived
				}
				return answer(10), tc.ok
			}
			var wg sync.WaitGroup
			results := make([]Answer, 5)
			for i := range results {
				wg.Go(func() { results[i], _ = c.Do(t.Context(), "k", Reads{Parts: Chain}, at, compute) })
			}
			// The four other requests are waiting once the first has started and the flight is seen.
			for c.Stats().Waiting < 4 {
				time.Sleep(time.Millisecond)
			}
			close(release)
			wg.Wait()
			if n := computed.Load(); n != tc.computed {
				t.Errorf("computed %d times, want %d", n, tc.computed)
			}
			for i, a := range results {
				if len(a.Body) != 10 {
					t.Errorf("request %d got %q", i, a.Body)
				}
			}
			if _, kept := c.Get("k", Reads{Parts: Chain}, at); kept != tc.ok {
				t.Errorf("kept %v, want %v", kept, tc.ok)
			}
		})
	}
}

// An answer that reads the pending state of some names is kept at their pending version: a
// mempool change naming others leaves it, one naming it ends it, and its chain part still counts.
func TestPendingAnswersLiveWhileTheirNamesStay(t *testing.T) {
	st := &state{s: notices.StateVersion{Chain: 1, Mempool: 5, Live: true}, pending: map[string]uint64{"SP1": 3, "SP2": 4}}
	c := New(1<<20, st)
	one := Reads{Parts: Chain | Mempool, Pending: []string{"SP1"}}
	whole := Reads{Parts: Chain | Mempool}
	at1, _ := c.Version(one)
	if at1.Mempool != 3 {
		t.Fatalf("version of SP1's pending state %d, want 3", at1.Mempool)
	}
	atWhole, _ := c.Version(whole)
	c.Put("one", one, at1, answer(10))
	c.Put("whole", whole, atWhole, answer(10))

	st.s.Mempool, st.pending["SP2"] = 6, 6 // a change naming SP2 alone
	now1, _ := c.Version(one)
	if _, ok := c.Get("one", one, now1); !ok {
		t.Error("SP1's answer dropped by a mempool change naming SP2 alone")
	}
	nowWhole, _ := c.Version(whole)
	if _, ok := c.Get("whole", whole, nowWhole); ok {
		t.Error("an answer reading the whole mempool outlived a change to it")
	}

	st.s.Mempool, st.pending["SP1"] = 7, 7 // a change naming SP1
	now1, _ = c.Version(one)
	if _, ok := c.Get("one", one, now1); ok {
		t.Error("SP1's answer outlived a mempool change naming SP1")
	}
	// Computed before that change and stored after it: dropped.
	c.Put("late", one, at1, answer(10))
	if _, ok := c.Get("late", one, now1); ok {
		t.Error("an answer read across a change to its names was kept")
	}

	c.Put("one", one, now1, answer(10))
	st.s.Chain++
	now1, _ = c.Version(one)
	if _, ok := c.Get("one", one, now1); ok {
		t.Error("a pending answer outlived a change to the chain it reads")
	}
}
