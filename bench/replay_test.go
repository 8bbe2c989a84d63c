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
	log, err := chaingen.TSV(g)
	return eventLog{log, g.Stats()}, err
})

type eventLog struct {
	tsv   []byte
	stats chaingen.Stats
}

// BenchmarkReplaySynthetic replays replayChain into a fresh database per iteration through
// ingest.Replay (the import-events path) and reports blocks, transactions and chain events
// applied per second of replay, and how the time per block after the middle of the chain
// compares with before it ("late/early" well above 1: ingestion slows as history grows; the
// middle is the first progress report past half the blocks, as replays commit in batches).
func BenchmarkReplaySynthetic(b *testing.B) {
	log, err := replayLog()
	if err != nil {
		b.Fatal(err)
	}
	stats := log.stats
	var elapsed, early, late float64
	for b.Loop() {
		store := dbtest.New(b)
		r, err := tsv.NewReader(bytes.NewReader(log.tsv))
		if err != nil {
			b.Fatal(err)
		}
		var mid ingest.Progress
		p, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{OnProgress: func(p ingest.Progress) {
			if mid.Blocks == 0 && 2*p.Blocks >= stats.Blocks {
				mid = p
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		if p.Blocks != stats.Blocks {
			b.Fatalf("replayed %d blocks, want %d", p.Blocks, stats.Blocks)
		}
		elapsed += p.Elapsed.Seconds()
		if mid.Blocks == 0 || mid.Blocks == p.Blocks {
			b.Fatalf("no progress report between the middle and the end of the replay (%+v)", mid)
		}
		early += mid.Elapsed.Seconds() / float64(mid.Blocks)
		late += (p.Elapsed - mid.Elapsed).Seconds() / float64(p.Blocks-mid.Blocks)
		store.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(stats.Blocks)*n/elapsed, "blocks/s")
	b.ReportMetric(float64(stats.Txs)*n/elapsed, "txs/s")
	b.ReportMetric(float64(stats.Events)*n/elapsed, "events/s")
	b.ReportMetric(float64(stats.Messages)*n/elapsed, "msgs/s")
	b.ReportMetric(elapsed/n, "s/replay")
	b.ReportMetric(late/early, "late/early")
}
