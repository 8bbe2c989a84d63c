package chaingen_test

import (
	"io"
	"testing"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// BenchmarkGenerate measures how fast signed chain data is produced (signing dominates).
func BenchmarkGenerate(b *testing.B) {
	o := chaingen.Options{Seed: 1, Blocks: 50, TxsPerBlock: 100, Accounts: 200, BusyShare: 0.27, ContractCallsPerBlock: 2}
	var txs int64
	for b.Loop() {
		g, err := chaingen.New(o)
		if err != nil {
			b.Fatal(err)
		}
		w := tsv.NewWriter(io.Discard)
		if _, err := chaingen.WriteTSV(w, g); err != nil || w.Close() != nil {
			b.Fatal(err)
		}
		txs += g.Stats().Txs
	}
	b.ReportMetric(float64(txs)/b.Elapsed().Seconds(), "txs/s")
}
