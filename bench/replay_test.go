package bench

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// replayChain is larger than any fixture: 200 blocks of 100 transfers and 2 contract calls.
var replayChain = chaingen.Options{Seed: 4, Blocks: 200, TxsPerBlock: 100, Accounts: 500, BusyShare: 0.27, ContractCallsPerBlock: 2}

// replayLog is replayChain's TSV event log and what it holds, generated once per process so
// that the benchmark measures ingestion only.
var replayLog = sync.OnceValues(func() (eventLog, error) {
	g, err := chaingen.New(replayChain)
	if err != nil {
		return eventLog{}, err
	}
	var buf bytes.Buffer
	_, err = chaingen.WriteTSV(&buf, g)
	return eventLog{buf.Bytes(), g.Stats()}, err
})

type eventLog struct {
	tsv   []byte
	stats chaingen.Stats
}

// BenchmarkReplaySynthetic replays replayChain into a fresh database per iteration through
// ingest.Replay (the import-events path) and reports blocks, transactions and chain events
// applied per second of replay.
func BenchmarkReplaySynthetic(b *testing.B) {
	log, err := replayLog()
	if err != nil {
		b.Fatal(err)
	}
	stats := log.stats
	var elapsed float64
	for b.Loop() {
		store := dbtest.New(b)
		r, err := tsv.NewReader(bytes.NewReader(log.tsv))
		if err != nil {
			b.Fatal(err)
		}
		p, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if p.Blocks != stats.Blocks {
			b.Fatalf("replayed %d blocks, want %d", p.Blocks, stats.Blocks)
		}
		elapsed += p.Elapsed.Seconds()
		store.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(stats.Blocks)*n/elapsed, "blocks/s")
	b.ReportMetric(float64(stats.Txs)*n/elapsed, "txs/s")
	b.ReportMetric(float64(stats.Events)*n/elapsed, "events/s")
	b.ReportMetric(float64(stats.Messages)*n/elapsed, "msgs/s")
	b.ReportMetric(elapsed/n, "s/replay")
}
