package db_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// The indexes an import into an empty chain defers are all back, as they were, and its totals
// no longer deferred, after the next migration (every writing command's start), which is what
// completes an import killed before its end; a chain that holds blocks keeps its indexes.
func TestDeferredIndexesComeBackOnMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	want := indexDefs(t, store)

	deferred, err := store.DeferUpkeep(ctx)
	if err != nil || !deferred {
		t.Fatalf("DeferUpkeep on an empty chain: deferred %v, err %v", deferred, err)
	}
	during := indexDefs(t, store)
	if len(during) >= len(want) {
		t.Fatalf("%d indexes while deferred, %d before", len(during), len(want))
	}
	const sender = "CREATE INDEX txs_sender_idx ON public.txs USING btree (sender_address, nonce) WHERE (canonical AND microblock_canonical)"
	if !slices.Contains(want, sender) || slices.Contains(during, sender) {
		t.Fatalf("txs_sender_idx is not among the deferred indexes: %v", during)
	}
	if !totalsDeferred(t, store) {
		t.Fatal("the totals of an import into an empty chain are not deferred")
	}
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if totalsDeferred(t, store) {
		t.Fatal("the totals are still deferred after migrate")
	}
	if got := indexDefs(t, store); !slices.Equal(got, want) {
		t.Fatalf("indexes after migrate:\n%v\nwant:\n%v", got, want)
	}
	if err := store.CompleteUpkeep(ctx); err != nil {
		t.Fatalf("CompleteUpkeep with nothing deferred: %v", err)
	}

	if _, err := store.DB.ExecContext(ctx, `INSERT INTO blocks (index_block_hash, block_hash, block_height, parent_index_block_hash, parent_block_hash,
		parent_microblock_hash, parent_microblock_sequence, burn_block_hash, burn_block_height, burn_block_time, block_time,
		miner_txid, canonical) VALUES ('\x01', '\x02', 1, '', '', '', 0, '\x03', 1, 0, 0, '', true)`); err != nil {
		t.Fatal(err)
	}
	if deferred, err := store.DeferUpkeep(ctx); err != nil || deferred || totalsDeferred(t, store) {
		t.Fatalf("DeferUpkeep on a chain with a block: deferred %v, err %v", deferred, err)
	}
	if got := indexDefs(t, store); !slices.Equal(got, want) {
		t.Fatalf("indexes of a chain with a block changed:\n%v", got)
	}
}

func indexDefs(t *testing.T, store *db.Store) []string {
	t.Helper()
	var defs []string
	if err := store.DB.NewRaw("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexdef").
		Scan(context.Background(), &defs); err != nil {
		t.Fatal(err)
	}
	return defs
}

func totalsDeferred(t *testing.T, store *db.Store) bool {
	t.Helper()
	var deferred bool
	if err := store.DB.NewRaw("SELECT totals_deferred FROM chain_tip").Scan(context.Background(), &deferred); err != nil {
		t.Fatal(err)
	}
	return deferred
}
