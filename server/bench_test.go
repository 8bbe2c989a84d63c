package server_test

import (
	"fmt"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

// BenchmarkNestedQuery measures nestedQuery over HTTP for growing page sizes with the production
// configuration, reporting SQL statements per request next to the latency.
func BenchmarkNestedQuery(b *testing.B) {
	a := newAPI(b, server.Config{MaxComplexity: 1 << 30})
	chain{blocks: 100, txsPerBlock: 20, eventsPerTx: 2, sender: testSender}.seed(b, a.store)
	for _, n := range []int{1, 10, 30, 100} {
		b.Run(fmt.Sprintf("blocks=%d", n), func(b *testing.B) {
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
