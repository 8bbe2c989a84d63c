package ingest

import (
	"testing"
)

// BenchmarkReplay replays the largest fixture into a fresh database per iteration and reports
// messages, blocks and chain events applied per second.
func BenchmarkReplay(b *testing.B) {
	const name = "epoch-3-transition"
	var msgs, blocks int64
	var elapsed float64
	for b.Loop() {
		_, p := replayFixture(b, name)
		msgs += p.Applied
		blocks += p.Blocks
		elapsed += p.Elapsed.Seconds()
	}
	b.ReportMetric(float64(msgs)/elapsed, "msgs/s")
	b.ReportMetric(float64(blocks)/elapsed, "blocks/s")
	b.ReportMetric(elapsed/float64(b.N)*1000, "ms/replay")
}
