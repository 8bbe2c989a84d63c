package ingest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// TestMinedNoncePrunesMempool mines a token transfer while the mempool holds another
// transaction spending the same sender nonce (a fee bump that lost) and one spending a later
// nonce: the first is pruned with the mined transaction, the second stays pending.
func TestMinedNoncePrunesMempool(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	in := NewIngester(store)
	ctx := context.Background()
	recs := fixtureRecords(t, "epoch-3-transition")
	for _, rec := range recs {
		mined := transferIn(t, rec)
		if mined == nil {
			if _, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		bumped, later := *mined, *mined
		bumped.Origin.Fee++
		later.Origin.Nonce += 1000
		raws, _ := json.Marshal([]string{db.Hex(bumped.Encode()), db.Hex(later.Encode())})
		if _, err := in.Apply(ctx, Message{Path: PathNewMempoolTx, Payload: raws, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Apply(ctx, Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			tx     tx.Transaction
			pruned bool
		}{{bumped, true}, {later, false}} {
			id := c.tx.TxID()
			var pruned bool
			if err := store.DB.NewRaw("SELECT pruned FROM mempool_txs WHERE tx_id = ?", id[:]).Scan(ctx, &pruned); err != nil {
				t.Fatal(err)
			}
			if pruned != c.pruned {
				t.Errorf("mempool tx with nonce %d: pruned = %v, want %v", c.tx.Nonce(), pruned, c.pruned)
			}
		}
		return
	}
	t.Fatal("the fixture mines no token transfer")
}

// transferIn returns the first token transfer a /new_block record above the boot blocks
// mines, if any.
func transferIn(t *testing.T, rec *tsv.Record) *tx.Transaction {
	t.Helper()
	if rec.Path != PathNewBlock {
		return nil
	}
	var m blockMessage
	if err := json.Unmarshal(rec.Payload, &m); err != nil {
		t.Fatal(err)
	}
	if m.BlockHeight < 2 {
		return nil
	}
	for _, raw := range m.Transactions {
		if d, err := tx.Decode(raw.RawTx); err == nil {
			if _, ok := d.Payload.(*tx.TokenTransfer); ok {
				return d
			}
		}
	}
	return nil
}
