package ingest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// derivedTables are the per-principal tables an import into an empty chain computes at its end
// rather than block by block, each with the condition of the rows that say something: live
// ingestion leaves zero rows behind for principals whose only rows left the canonical chain,
// which read as their absence does.
var derivedTables = map[string]string{
	"principal_stx_totals": "total_received <> 0 OR total_sent <> 0 OR total_fees_sent <> 0 OR total_miner_rewards_received <> 0 " +
		"OR tx_count <> 0 OR tx_count_all <> 0",
	"principal_stx_checkpoints": "true",
	"principal_tx_positions":    "true",
	"principal_event_positions": "true",
	"principal_event_counts":    "event_count <> 0",
	"ft_balances":               "balance <> 0",
	"nft_custody":               "true",
}

// derivedDigest fingerprints the rows of the derived tables that say something.
func derivedDigest(t *testing.T, store *db.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for table, where := range derivedTables {
		var d string
		q := fmt.Sprintf("SELECT coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM %s r WHERE %s", table, where)
		if err := store.DB.NewRaw(q).Scan(context.Background(), &d); err != nil {
			t.Fatal(err)
		}
		out[table] = d
	}
	return out
}

// applyAll applies records one message per transaction, as the live observer does.
func applyAll(t *testing.T, store *db.Store, recs []*tsv.Record) {
	t.Helper()
	in := NewIngester(store)
	for _, rec := range recs {
		if rec.Payload == nil {
			continue
		}
		if _, err := in.Apply(context.Background(), replayed(rec)); err != nil {
			t.Fatalf("record %d: %v", rec.ID, err)
		}
	}
}

// deferredImport replays records into an empty store that defers its upkeep, and checks that
// nothing kept the per-principal tables meanwhile.
func deferredImport(t *testing.T, recs []*tsv.Record) *db.Store {
	t.Helper()
	store := newStore(t)
	if deferred, err := store.DeferUpkeep(context.Background()); err != nil || !deferred {
		t.Fatalf("DeferUpkeep on an empty chain: deferred %v, err %v", deferred, err)
	}
	applyAll(t, store, recs)
	if n := count(t, store, "SELECT count(*) FROM principal_tx_positions"); n != 0 {
		t.Fatalf("%d transaction positions kept during a deferred import", n)
	}
	return store
}

// An import into an empty chain that leaves the totals, checkpoints, positions and counts to
// its end ends with the same ones as live ingestion of the same messages, forks, microblocks and
// reorgs included.
func TestDeferredTotalsMatchLiveIngestion(t *testing.T) {
	for _, name := range []string{"mainnet-reorg-scenario1", "mainnet-out-of-order-microblock", "poisonmicroblock", "epoch-3-transition"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			recs := fixtureRecords(t, name)
			live := newStore(t)
			applyAll(t, live, recs)
			imported := deferredImport(t, recs)
			if err := imported.CompleteUpkeep(context.Background()); err != nil {
				t.Fatal(err)
			}
			checkTotals(t, imported)
			checkPositions(t, imported)
			diffDigests(t, "deferred import", derivedDigest(t, live), derivedDigest(t, imported))
		})
	}
}

// An import killed before its end leaves the totals to the next process that migrates the
// database, which recomputes them; ingestion after that keeps them block by block again.
func TestKilledDeferredImportIsCompletedByMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	recs := fixtureRecords(t, "mainnet-reorg-scenario1")
	half := len(recs) / 2
	imported := deferredImport(t, recs[:half])
	if _, err := imported.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	live := newStore(t)
	applyAll(t, live, recs[:half])
	diffDigests(t, "import killed half way, then migrated", derivedDigest(t, live), derivedDigest(t, imported))

	applyAll(t, imported, recs[half:])
	applyAll(t, live, recs[half:])
	checkTotals(t, imported)
	checkPositions(t, imported)
	diffDigests(t, "import resumed after the migration", derivedDigest(t, live), derivedDigest(t, imported))
}
