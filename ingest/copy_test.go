package ingest

import (
	"bytes"
	"testing"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// Blocks large enough that their rows are copied straight into their tables, next to the
// statements of a fork and of microblocks as large: those the next block confirms (whose
// unconfirmed rows give way to the block's copies in the same round trip) and the last one,
// left unconfirmed. The chain is replayed in batches, whose queued writes go to the server
// several blocks at a time, and ends as when applied one message per transaction. Every
// transaction is stored once, where the chain puts it, and the per-principal figures agree
// with the rows.
func TestLargeBlocksBesideForkAndMicroblocks(t *testing.T) {
	t.Parallel()
	g, err := chaingen.New(chaingen.Options{Seed: 12, Blocks: 23, TxsPerBlock: 40, Accounts: 12, BusyShare: 0.3,
		ContractCallsPerBlock: 2, ForkAt: 5, MicroblockEvery: 12, MicroblockTxs: 20})
	if err != nil {
		t.Fatal(err)
	}
	log, err := chaingen.TSV(g)
	if err != nil {
		t.Fatal(err)
	}
	// A batch holds the writes of the blocks between two reads of the database (a fork, a
	// microblock) and sends them once they pass 512 KiB, a request log's payloads included: the
	// blocks between two microblocks must pass that.
	o := g.Options()
	if between := len(log) / o.Blocks * (o.MicroblockEvery - 1); between < 512<<10 {
		t.Fatalf("%d bytes of messages between two microblocks; the test needs more than 512 KiB", between)
	}
	st, mbTxs := g.Stats(), int64(o.MicroblockTxs)
	if st.Microblocks < 2 {
		t.Fatalf("the chain streamed %d microblocks; the test needs a confirmed one and the unconfirmed last", st.Microblocks)
	}
	store, _ := replay(t, tsvReader(t, log))
	for _, c := range []struct {
		what, query string
		want        int64
	}{
		{"mined transactions", "SELECT count(*) FROM txs WHERE canonical AND microblock_canonical AND index_block_hash <> ''", st.Txs - st.ForkBlocks - mbTxs},
		{"distinct mined transactions", "SELECT count(DISTINCT tx_id) FROM txs WHERE index_block_hash <> ''", st.Txs - mbTxs},
		{"confirmed microblock transactions", "SELECT count(*) FROM txs WHERE microblock_hash <> '' AND index_block_hash <> '' AND microblock_canonical", (st.Microblocks - 1) * mbTxs},
		{"unconfirmed microblock transactions", "SELECT count(*) FROM txs WHERE index_block_hash = ''", mbTxs},
		{"fork transactions", "SELECT count(*) FROM txs WHERE NOT canonical", st.ForkBlocks},
	} {
		if got := count(t, store, c.query); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.what, got, c.want)
		}
	}
	checkTotals(t, store)
	checkPositions(t, store)
	checkAsOneByOne(t, store, records(t, tsvReader(t, log)))
}

func tsvReader(t *testing.T, b []byte) *tsv.Reader {
	t.Helper()
	r, err := tsv.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
