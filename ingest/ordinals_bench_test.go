package ingest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkOrdinalsIngest applies the real mainnet UniSat file (one payload per block) into a
// fresh database per iteration, directly and through the listener over loopback HTTP, and
// reports inscription reveals and moves ingested per second and BRC-20 operations written per
// second. The database clone is not timed.
func BenchmarkOrdinalsIngest(b *testing.B) {
	blocks := unisatBlocks(b)
	var inscriptionOps int
	for _, blk := range blocks {
		inscriptionOps += blk.Operations
	}
	report := func(b *testing.B, elapsed time.Duration, ops int) {
		s := elapsed.Seconds()
		b.ReportMetric(float64(inscriptionOps*b.N)/s, "inscription-ops/s")
		b.ReportMetric(float64(ops)/s, "brc20-ops/s")
		b.ReportMetric(s/float64(b.N)*1000, "ms/file")
	}
	b.Run("direct", func(b *testing.B) {
		var elapsed time.Duration
		var ops int
		for b.Loop() {
			store := newStore(b)
			start := time.Now()
			for _, blk := range blocks {
				p, err := DecodeOrdinals(blk.Payload)
				if err != nil {
					b.Fatal(err)
				}
				res, err := ApplyOrdinals(context.Background(), store, p)
				if err != nil {
					b.Fatal(err)
				}
				ops += res.Operations
			}
			elapsed += time.Since(start)
		}
		report(b, elapsed, ops)
	})
	b.Run("listener", func(b *testing.B) {
		var elapsed time.Duration
		var ops int64
		for b.Loop() {
			store := newStore(b)
			srv := httptest.NewServer(NewServer(store, Options{OrdinalsToken: "bench"}))
			start := time.Now()
			for _, blk := range blocks {
				mustPost(b, srv.URL, "bench", blk.Payload)
			}
			elapsed += time.Since(start)
			srv.Close()
			ops += count(b, store, "SELECT count(*) FROM brc20_operations")
		}
		report(b, elapsed, int(ops))
	})
}
