package server

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/respcache"
)

// liveState is a chain state that stays where it is.
type liveState struct{ v notices.StateVersion }

func (s liveState) Version() notices.StateVersion  { return s.v }
func (s liveState) PendingVersion([]string) uint64 { return s.v.Mempool }

// The answer cache's counters and size are scraped as they are: a read computed, then served as
// kept, is one miss, one hit and one entry of its bytes.
func TestAnswerCacheMetrics(t *testing.T) {
	cache := respcache.New(1<<20, liveState{notices.StateVersion{Chain: 1, Live: true}})
	reads := respcache.Reads{Parts: respcache.Chain}
	at, _ := cache.Version(reads)
	for range 2 {
		cache.Do(t.Context(), "/extended/v1/block", reads, at, func() (respcache.Answer, bool) {
			return respcache.Answer{Body: []byte(`{"total":1}`)}, true
		})
	}
	registry := prometheus.NewRegistry()
	registerAnswerCache(registry, cache)
	got := gathered(t, registry)
	st := cache.Stats()
	for name, want := range map[string]float64{
		"stxgraph_answer_cache_hits_total": 1, "stxgraph_answer_cache_misses_total": 1, "stxgraph_answer_cache_shared_total": 0,
		"stxgraph_answer_cache_evictions_total": 0, "stxgraph_answer_cache_waiting": 0, "stxgraph_answer_cache_entries": 1,
		"stxgraph_answer_cache_bytes": float64(st.Bytes),
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %v (reported %v), want %v", name, v, ok, want)
		}
	}
	if st.Bytes <= int64(len(`{"total":1}`)) {
		t.Errorf("the kept answer takes %d bytes, less than its body", st.Bytes)
	}
}

// gathered is each of the registry's single-series metrics by name, as a scrape reads it.
func gathered(t *testing.T, registry *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			got[f.GetName()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return got
}
