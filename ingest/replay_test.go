package ingest

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

var tsvFixtures = []string{
	"epoch-3-transition", "fuzzed-transactions-1", "mainnet-block0", "mainnet-out-of-order-microblock",
	"mainnet-reorg-scenario1", "mainnet-reorg-scenario2", "mocknet", "poisonmicroblock",
	"regtest-env-pox-4-out-of-order-multisig-tx", "regtest-env-pox-4-stack-stx-in-reward-phase-S1",
	"regtest-env-pox-4-stack-stx-in-reward-phase-S2", "regtest-env-pox-4-stack-stx-in-reward-phase-S3",
}

// TestReplayFixtures replays every fixture once and checks the replayed database: the totals
// invariant, the fixture's facts and, for COPY-escaped fixtures, the export round trip.
func TestReplayFixtures(t *testing.T) {
	for _, name := range tsvFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, p := replayFixture(t, name)
			if p.Applied == 0 {
				t.Fatal("nothing applied")
			}
			checkTotals(t, store)
			checkPositions(t, store)
			checkEventKinds(t, store)
			checkFacts(t, store, name)
			if exportedFixtures[name] {
				checkExport(t, store, name)
			}
		})
	}
}

// replayFixture replays a shared TSV fixture into a fresh database.
func replayFixture(t testing.TB, name string) (*db.Store, Progress) {
	t.Helper()
	r, c, err := tsv.Open(fixtures.Path(t, "stacks/"+name+".tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return replay(t, r)
}

// replay replays the records of r into a fresh database.
func replay(t testing.TB, r *tsv.Reader) (*db.Store, Progress) {
	t.Helper()
	store := newStore(t)
	p, err := NewIngester(store).Replay(context.Background(), r, ReplayOptions{})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return store, p
}

// newStore is a fresh database, closed when the test ends.
func newStore(t testing.TB) *db.Store {
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	return store
}

// TestReplayBatchesAsOneByOne replays fixtures with forks, microblocks, burnchain runs and
// mempool traffic in batches and one message per transaction, as the live observer applies
// them: a batch keeps the chain state in memory and holds some writes back to merge them
// (runs of burn blocks, the totals, the request log), which must not change the end state.
func TestReplayBatchesAsOneByOne(t *testing.T) {
	for _, name := range []string{"epoch-3-transition", "mainnet-reorg-scenario1", "mainnet-out-of-order-microblock", "poisonmicroblock"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			batched, _ := replayFixture(t, name)
			checkAsOneByOne(t, batched, fixtureRecords(t, name))
		})
	}
}

// checkAsOneByOne applies recs one message per transaction to a fresh database and checks that
// replayed, which a replay of the same records built, ended in the same state and request log.
func checkAsOneByOne(t *testing.T, replayed *db.Store, recs []*tsv.Record) {
	t.Helper()
	single := newStore(t)
	applyAll(t, single, recs)
	want := digest(t, single)
	want["event_observer_requests"] = requestLogDigest(t, single)
	got := digest(t, replayed)
	got["event_observer_requests"] = requestLogDigest(t, replayed)
	diffDigests(t, "batched replay", want, got)
}

func requestLogDigest(t *testing.T, store *db.Store) string {
	t.Helper()
	var d string
	if err := store.DB.NewRaw("SELECT md5(string_agg(r::text, '|' ORDER BY id)) FROM event_observer_requests r").Scan(context.Background(), &d); err != nil {
		t.Fatal(err)
	}
	return d
}
