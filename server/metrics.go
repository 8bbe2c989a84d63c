package server

import (
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/stxgraph/stxgraph/respcache"
)

// metrics counts HTTP requests by route template and status, and times them.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics(sqldb *sql.DB, statements func() int64, answers *respcache.Cache) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stxgraph_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "stxgraph_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewDBStatsCollector(sqldb, "stxgraph"),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "stxgraph_sql_statements_total", Help: "SQL statements run against the database.",
		}, func() float64 { return float64(statements()) }))
	registerAnswerCache(m.registry, answers)
	return m
}

// registerAnswerCache has the registry report the answer cache's counters and size (none for no
// cache), each read when scraped.
func registerAnswerCache(registry *prometheus.Registry, answers *respcache.Cache) {
	if answers == nil {
		return
	}
	for _, m := range []struct {
		name, help string
		counter    bool
		value      func(respcache.Stats) int64
	}{
		{"stxgraph_answer_cache_hits_total", "Answers served as kept at the current chain state.", true,
			func(s respcache.Stats) int64 { return s.Hits }},
		{"stxgraph_answer_cache_misses_total", "Answers looked for and not kept at the current chain state.", true,
			func(s respcache.Stats) int64 { return s.Misses }},
		{"stxgraph_answer_cache_shared_total", "Answers served from an identical request's computation under way.", true,
			func(s respcache.Stats) int64 { return s.Shared }},
		{"stxgraph_answer_cache_evictions_total", "Answers dropped to stay within the cache's bytes.", true,
			func(s respcache.Stats) int64 { return s.Evictions }},
		{"stxgraph_answer_cache_waiting", "Requests waiting for an identical request's computation.", false,
			func(s respcache.Stats) int64 { return int64(s.Waiting) }},
		{"stxgraph_answer_cache_entries", "Answers kept.", false, func(s respcache.Stats) int64 { return int64(s.Entries) }},
		{"stxgraph_answer_cache_bytes", "Bytes the kept answers take.", false, func(s respcache.Stats) int64 { return s.Bytes }},
	} {
		read := func() float64 { return float64(m.value(answers.Stats())) }
		if m.counter {
			registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: m.name, Help: m.help}, read))
		} else {
			registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: m.name, Help: m.help}, read))
		}
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// observe records one request under its route template (not its raw path, which would make one
// series per address or hash).
func (m *metrics) observe(r *http.Request, status int, elapsed time.Duration) {
	route := "unmatched"
	if cur := mux.CurrentRoute(r); cur != nil {
		if tpl, err := cur.GetPathTemplate(); err == nil {
			route = tpl
		}
	}
	m.requests.WithLabelValues(route, r.Method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(elapsed.Seconds())
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer (flushing, hijacking for
// WebSocket subscriptions).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
