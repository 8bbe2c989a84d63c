package ingest

import (
	"context"
	"testing"

	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// Blocks large enough that their rows are copied straight into their tables, next to the
// statements of a fork and of microblocks as large: those the next block confirms (whose
// unconfirmed rows give way to the block's copies in the same round trip) and the last one,
// left unconfirmed. Every transaction is stored once, where the chain puts it, and the
// per-principal figures agree with the rows.
func TestLargeBlocksBesideForkAndMicroblocks(t *testing.T) {
	t.Parallel()
	g, err := chaingen.New(chaingen.Options{Seed: 12, Blocks: 8, TxsPerBlock: 40, Accounts: 12, BusyShare: 0.3,
		ContractCallsPerBlock: 2, ForkAt: 5, MicroblockEvery: 3, MicroblockTxs: 20})
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	in := NewIngester(store)
	ctx := context.Background()
	if err := g.Each(func(m chaingen.Message) error {
		_, err := in.Apply(ctx, Message{Path: m.Path, Payload: m.Payload, ReceivedAt: m.ReceivedAt})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	st, mbTxs := g.Stats(), int64(g.Options().MicroblockTxs)
	if st.Microblocks < 2 {
		t.Fatalf("the chain streamed %d microblocks; the test needs a confirmed one and the unconfirmed last", st.Microblocks)
	}
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
}
