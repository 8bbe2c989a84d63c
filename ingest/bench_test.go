package ingest

import (
	"testing"
)

// BenchmarkReplay replays each fixture into a fresh database per iteration (the clone is not
// timed) and reports messages, blocks and transactions applied per second of replay.
func BenchmarkReplay(b *testing.B) {
	for _, name := range tsvFixtures {
		b.Run(name, func(b *testing.B) {
			var msgs, blocks, txs int64
			var elapsed float64
			for b.Loop() {
				store, p := replayFixture(b, name)
				msgs += p.Applied
				blocks += p.Blocks
				txs += count(b, store, "SELECT count(*) FROM txs")
				elapsed += p.Elapsed.Seconds()
			}
			b.ReportMetric(float64(msgs)/elapsed, "msgs/s")
			b.ReportMetric(float64(blocks)/elapsed, "blocks/s")
			b.ReportMetric(float64(txs)/elapsed, "txs/s")
			b.ReportMetric(elapsed/float64(b.N)*1000, "ms/replay")
		})
	}
}
