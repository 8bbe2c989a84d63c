package chainwrite_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"testing"

	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

// The ingest writer's two ways of sending rows store the same rows: every table's rows copied
// (COPY text made from the literals of a VALUES list; a new block's rows straight into their
// tables, the others through staging tables) or every row in a VALUES list. Checked on a
// generated chain and on fixtures with forks and out-of-order microblocks. Not parallel: it sets
// the threshold for the whole package while it runs.
func TestCopyAndValuesStoreTheSame(t *testing.T) {
	logs := map[string][]byte{"synthetic": syntheticLog(t)}
	for _, name := range []string{"mainnet-out-of-order-microblock", "poisonmicroblock", "mainnet-reorg-scenario1"} {
		b, err := os.ReadFile(fixtures.Path(t, "stacks/"+name+".tsv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		logs[name] = b
	}
	for name, log := range logs {
		sameStateCopiedOrValues(t, name, log)
	}
}

// syntheticLog is the TSV log of a generated chain with a fork and microblocks.
func syntheticLog(t *testing.T) []byte {
	t.Helper()
	g, err := chaingen.New(chaingen.Options{Seed: 7, Blocks: 14, TxsPerBlock: 20, Accounts: 8, BusyShare: 0.3,
		ContractCallsPerBlock: 2, ForkAt: 4, MicroblockEvery: 5, MicroblockTxs: 6})
	if err != nil {
		t.Fatal(err)
	}
	log, err := chaingen.TSV(g)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// replayedState replays a TSV log into a fresh database and sums up what it stored: the
// canonical digest, and what the digest leaves out (the rows of the fork, the principals'
// transaction index, the kinds of events each transaction row records, the mempool and its
// update time).
func replayedState(t *testing.T, log []byte) string {
	t.Helper()
	store := dbtest.New(t)
	defer store.Close()
	ctx := context.Background()
	r, err := tsv.NewReader(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIngester(store).Replay(ctx, r, ingest.ReplayOptions{}); err != nil {
		t.Fatalf("replay: %v", err)
	}
	_, digest, err := store.Digest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rest string
	err = store.DB.QueryRowContext(ctx, `SELECT concat_ws(' ',
		(SELECT count(*) FROM txs WHERE NOT canonical), (SELECT count(*) FROM txs WHERE NOT microblock_canonical),
		(SELECT md5(string_agg(p::text, ',' ORDER BY p::text)) FROM principal_txs p),
		(SELECT md5(string_agg(concat_ws(':', encode(tx_id, 'hex'), encode(index_block_hash, 'hex'), encode(microblock_hash, 'hex'),
			event_kinds), ',' ORDER BY tx_id, index_block_hash, microblock_hash)) FROM txs),
		(SELECT md5(string_agg(e::text, ',' ORDER BY e::text)) FROM stx_events e),
		(SELECT md5(string_agg(c::text, ',' ORDER BY c::text)) FROM smart_contracts c),
		(SELECT md5(string_agg(m::text, ',' ORDER BY m::text)) FROM mempool_txs m),
		(SELECT mempool_updated_at FROM chain_tip))`).Scan(&rest)
	if err != nil {
		t.Fatal(err)
	}
	if rest == "" || digest == "" {
		t.Fatal("nothing stored")
	}
	return digest + " " + rest
}

// sameStateCopiedOrValues replays log twice, every table's rows copied and every table's rows sent
// as VALUES, and fails when the chain states differ. It sets the copy threshold for the whole
// package while it runs.
func sameStateCopiedOrValues(t *testing.T, name string, log []byte) {
	t.Helper()
	states := map[string]string{}
	for _, c := range []struct {
		way     string
		minRows int
	}{{"copied", 1}, {"as VALUES", math.MaxInt}} {
		chainwrite.SetCopyMinRows(t, c.minRows)
		states[c.way] = replayedState(t, log)
	}
	if states["copied"] != states["as VALUES"] {
		t.Errorf("%s: rows copied and rows sent as VALUES give different states:\ncopied:    %s\nas VALUES: %s",
			name, states["copied"], states["as VALUES"])
	}
}
