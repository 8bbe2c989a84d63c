package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/server"
)

// BenchmarkNestedQuery measures nestedQuery over HTTP for growing page sizes, reporting SQL
// statements per request next to the latency, with the production batch wait and a longer one.
func BenchmarkNestedQuery(b *testing.B) {
	for _, wait := range []time.Duration{loaders.DefaultWait, 5 * time.Millisecond} {
		a := newAPI(b, server.Config{LoaderWait: wait, MaxComplexity: 1 << 30})
		chain{blocks: 100, txsPerBlock: 20, eventsPerTx: 2, sender: testSender}.seed(b, a.store)
		for _, n := range []int{1, 10, 30, 100} {
			b.Run(fmt.Sprintf("wait=%s/blocks=%d", wait, n), func(b *testing.B) {
				vars := map[string]any{"n": n}
				var stmts int64
				for b.Loop() {
					_, s := a.mustQuery(b, nestedQuery, vars)
					stmts += s
				}
				b.ReportMetric(float64(stmts)/float64(b.N), "sql/op")
			})
		}
	}
}
