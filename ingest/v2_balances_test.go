package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// ftBalancesMismatchSQL sums every principal's token amounts over the events of canonical
// blocks afresh and lists the (principal, token) pairs whose maintained balance differs.
const ftBalancesMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
d AS (SELECT recipient AS p, asset_identifier AS a, amount AS v FROM ft_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) AND recipient IS NOT NULL
	UNION ALL
	SELECT sender, asset_identifier, -amount FROM ft_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted) AND sender IS NOT NULL),
expected AS (SELECT p, a, sum(v) AS v FROM d GROUP BY p, a)
SELECT coalesce(e.p, b.principal) || ' ' || coalesce(e.a, b.asset_identifier) FROM expected e
FULL JOIN ft_balances b ON b.principal = e.p AND b.asset_identifier = e.a
WHERE coalesce(e.v, 0) <> coalesce(b.balance, 0)`

// nftCustodyMismatchSQL finds every token's newest event in canonical blocks afresh and lists
// the tokens whose maintained custody differs, is missing or is left over.
const nftCustodyMismatchSQL = `
WITH counted AS (SELECT index_block_hash FROM blocks WHERE canonical),
expected AS (SELECT DISTINCT ON (asset_identifier, value) * FROM nft_events
	WHERE canonical AND microblock_canonical AND index_block_hash IN (SELECT * FROM counted)
	ORDER BY asset_identifier, value, block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC)
SELECT coalesce(e.asset_identifier, c.asset_identifier) || ' ' || encode(coalesce(e.value, c.value), 'hex')
FROM expected e FULL JOIN nft_custody c ON c.asset_identifier = e.asset_identifier AND c.value = e.value
WHERE e.tx_id IS NULL OR c.tx_id IS NULL OR e.tx_id <> c.tx_id OR e.index_block_hash <> c.index_block_hash
	OR e.event_index <> c.event_index OR e.recipient IS DISTINCT FROM c.recipient OR e.block_height <> c.block_height`

// checkTokenHoldings checks the maintained FT balances and NFT custody against a recomputation.
func checkTokenHoldings(t *testing.T, store *db.Store) {
	t.Helper()
	for _, q := range []struct{ what, sql string }{{"FT balances", ftBalancesMismatchSQL}, {"NFT custody", nftCustodyMismatchSQL}} {
		var bad []string
		if err := store.DB.NewRaw(q.sql).Scan(context.Background(), &bad); err != nil {
			t.Fatal(err)
		}
		if len(bad) > 0 {
			t.Errorf("%d wrong %s, e.g. %v", len(bad), q.what, bad[:min(5, len(bad))])
		}
	}
}

// Replayed in batches (rows copied) and applied one message at a time (the live observer), the
// fixtures with token events, forks and microblocks end with the balances and custody their
// canonical events give.
func TestTokenHoldingsInvariant(t *testing.T) {
	for _, name := range []string{"poisonmicroblock", "mainnet-reorg-scenario2", "mainnet-out-of-order-microblock"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			batched, _ := replayFixture(t, name)
			checkTokenHoldings(t, batched)
			single := newStore(t)
			applyAll(t, single, fixtureRecords(t, name))
			checkTokenHoldings(t, single)
			if count(t, batched, "SELECT count(*) FROM ft_balances WHERE balance > 0") == 0 ||
				count(t, batched, "SELECT count(*) FROM nft_custody") == 0 {
				t.Error("no balance or custody: the invariant checked nothing")
			}
		})
	}
}

// Record numbers (from 0) in mainnet-reorg-scenario2: block 0xd4e8… at height 2 is canonical
// when it arrives; its sibling 0x9f79… follows, and the block at height 3 on the sibling orphans
// it. Both mint the same NFT in the same transaction.
const (
	scenario2Orphaned = 2
	scenario2Reorg    = 4
)

// mintedHolder and mintedToken are the FT mint added to the orphaned block's events.
const (
	mintedHolder = "SP2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH"
	mintedToken  = "SP32AEEF6WW5Y0NMJ1S8SBSZDAY8R5J32NBZFPKKZ.test-token::test"
)

// withFtMint adds an FT mint of 500 to the block's first event's transaction.
func withFtMint(t *testing.T, payload []byte) []byte {
	t.Helper()
	var block map[string]json.RawMessage
	if err := json.Unmarshal(payload, &block); err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	if err := json.Unmarshal(block["events"], &events); err != nil || len(events) == 0 {
		t.Fatalf("events: %v", err)
	}
	events = append(events, map[string]any{"txid": events[0]["txid"], "type": "ft_mint_event", "committed": true, "event_index": 99,
		"ft_mint_event": map[string]any{"asset_identifier": mintedToken, "recipient": mintedHolder, "amount": "500"}})
	b, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	block["events"] = b
	out, err := json.Marshal(block)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A reorg takes back the FT balance an orphaned block minted and hands the NFT it minted to the
// new canonical block's mint, in live ingestion step by step and in a batched replay.
func TestReorgTakesBackTokenHoldings(t *testing.T) {
	recs := fixtureRecords(t, "mainnet-reorg-scenario2")
	recs[scenario2Orphaned].Payload = withFtMint(t, recs[scenario2Orphaned].Payload)
	balance := func(store *db.Store) int64 {
		return count(t, store, "SELECT coalesce(sum(balance), 0) FROM ft_balances WHERE principal = ? AND asset_identifier = ?",
			mintedHolder, mintedToken)
	}
	custodyBlock := func(store *db.Store) string {
		var h string
		if err := store.DB.NewRaw("SELECT encode(index_block_hash, 'hex') FROM nft_custody").Scan(context.Background(), &h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	live := newStore(t)
	in := NewIngester(live)
	for i, rec := range recs[:scenario2Reorg+1] {
		if _, err := in.Apply(context.Background(), replayed(rec)); err != nil {
			t.Fatalf("record %d: %v", rec.ID, err)
		}
		switch i {
		case scenario2Orphaned:
			if got := balance(live); got != 500 {
				t.Fatalf("after the minting block: balance %d, want 500", got)
			}
			if got := custodyBlock(live); got[:4] != "d4e8" {
				t.Fatalf("after the minting block: the NFT is held by block %s, want d4e8…", got)
			}
		case scenario2Reorg:
			if got := balance(live); got != 0 {
				t.Errorf("after the reorg: balance %d, want 0", got)
			}
			if got := custodyBlock(live); got[:4] != "9f79" {
				t.Errorf("after the reorg: the NFT is held by block %s, want 9f79…", got)
			}
		}
	}
	checkTokenHoldings(t, live)

	var log bytes.Buffer
	w := tsv.NewWriter(&log)
	for _, rec := range recs {
		if err := w.Write(*rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	batched, _ := replay(t, tsvReader(t, log.Bytes()))
	if got := balance(batched); got != 0 {
		t.Errorf("batched replay: balance %d, want 0", got)
	}
	checkTokenHoldings(t, batched)
}
