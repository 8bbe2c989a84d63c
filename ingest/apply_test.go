package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// stateTables are the tables a message changes, apart from the raw request log.
var stateTables = []string{
	"chain_tip", "pox_state", "burn_blocks", "burnchain_rewards", "reward_slot_holders", "blocks", "microblocks",
	"txs", "mempool_txs", "stx_events", "ft_events", "nft_events", "contract_logs", "stx_lock_events", "pox_events",
	"miner_rewards", "smart_contracts", "principal_txs", "principal_stx_totals", "ft_balances", "nft_custody",
	"pox_cycles", "pox_signers",
}

// digest fingerprints the rows of every state table.
func digest(t *testing.T, store *db.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, table := range stateTables {
		var d string
		q := fmt.Sprintf("SELECT coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM %s r", table)
		if err := store.DB.NewRaw(q).Scan(context.Background(), &d); err != nil {
			t.Fatal(err)
		}
		out[table] = d
	}
	return out
}

func diffDigests(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	for table, d := range a {
		if b[table] != d {
			t.Errorf("%s: table %s changed", what, table)
		}
	}
}

// fixtureRecords reads every record of a TSV fixture.
func fixtureRecords(t *testing.T, name string) []*tsv.Record {
	t.Helper()
	r, c, err := tsv.Open(fixtures.Path(t, "stacks/"+name+".tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return records(t, r)
}

// records reads every record of r.
func records(t *testing.T, r *tsv.Reader) []*tsv.Record {
	t.Helper()
	var recs []*tsv.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// TestApplyTwice delivers every message of a fixture with forks and microblocks twice in a row,
// as a node does after a timeout, and checks the second delivery changes nothing.
func TestApplyTwice(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	in := NewIngester(store)
	ctx := context.Background()
	for _, rec := range fixtureRecords(t, "mainnet-reorg-scenario2") {
		m := Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}
		if _, err := in.Apply(ctx, m); err != nil {
			t.Fatal(err)
		}
		before := digest(t, store)
		if _, err := in.Apply(ctx, m); err != nil {
			t.Fatal(err)
		}
		diffDigests(t, "second delivery of "+rec.Path, before, digest(t, store))
	}
}

// TestApplyFailureLeavesNothing makes every message fail after all its writes, just before
// commit, and checks that nothing of it remains.
func TestApplyFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	in := NewIngester(store)
	ctx := context.Background()
	injected := errors.New("injected failure")
	for i, rec := range fixtureRecords(t, "mainnet-reorg-scenario2") {
		before := digest(t, store)
		in.applyHook = func() error { return injected }
		m := Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt, LogRaw: true}
		if _, err := in.Apply(ctx, m); !errors.Is(err, injected) {
			t.Fatalf("Apply with an injected failure = %v", err)
		}
		diffDigests(t, "failed "+rec.Path, before, digest(t, store))
		if n := count(t, store, "SELECT count(*) FROM event_observer_requests"); n != int64(i) {
			t.Fatalf("logged requests after a failure = %d, want %d", n, i)
		}
		in.applyHook = nil
		if _, err := in.Apply(ctx, m); err != nil {
			t.Fatal(err)
		}
		if rec.Path == PathNewBlock && count(t, store, "SELECT count(*) FROM blocks") == 0 {
			t.Fatal("the retried block was not stored")
		}
	}
}

// exportedFixtures are the COPY-escaped fixtures: exporting them after a replay must give the
// input back byte for byte (ids, timestamps, jsonb-normalised payloads), minus duplicate ids.
var exportedFixtures = map[string]bool{
	"mocknet": true, "mainnet-reorg-scenario2": true, "poisonmicroblock": true, "epoch-3-transition": true,
}

func checkExport(t *testing.T, store *db.Store, name string) {
	var out bytes.Buffer
	n, err := Export(context.Background(), store, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := dedupLines(t, fixtures.ReadGzip(t, fixtures.Path(t, "stacks/"+name+".tsv.gz")))
	if int(n) != strings.Count(want, "\n") {
		t.Errorf("exported %d rows, want %d", n, strings.Count(want, "\n"))
	}
	if out.String() != want {
		t.Errorf("export differs from the imported file (%d vs %d bytes)", out.Len(), len(want))
	}
}

// dedupLines keeps the first line of each id.
func dedupLines(t *testing.T, b []byte) string {
	seen := map[string]bool{}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		id, _, _ := strings.Cut(line, "\t")
		if line == "" || seen[id] {
			continue
		}
		seen[id] = true
		out.WriteString(line)
	}
	return out.String()
}

// TestReplayRestartable interrupts a replay after each prefix length and runs it again on
// the same database: the end state must equal an uninterrupted replay's.
func TestReplayRestartable(t *testing.T) {
	t.Parallel()
	const name = "mainnet-reorg-scenario2"
	full, _ := replayFixture(t, name)
	want := digest(t, full)
	raw := fixtures.ReadGzip(t, fixtures.Path(t, "stacks/"+name+".tsv.gz"))
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	for cut := 1; cut < len(lines); cut++ {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			in := NewIngester(store)
			for _, part := range []string{strings.Join(lines[:cut], ""), string(raw)} {
				r, err := tsv.NewReader(strings.NewReader(part))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := in.Replay(context.Background(), r, ReplayOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			diffDigests(t, fmt.Sprintf("replay interrupted after %d records", cut), want, digest(t, store))
		})
	}
}

// TestReplayStopsAtBadRecord replays a file with a malformed record in the middle of a batch:
// the records before it stay applied, the error names it, and nothing after it is applied.
func TestReplayStopsAtBadRecord(t *testing.T) {
	t.Parallel()
	raw := fixtures.ReadGzip(t, fixtures.Path(t, "stacks/mocknet.tsv.gz"))
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	id, _, _ := strings.Cut(lines[5], "\t")
	bad := id + "\t2022-10-05 16:20:34+00\t/new_block\t{\"block_height\": \"x\"}\n"
	file := strings.Join(lines[:5], "") + bad + strings.Join(lines[6:], "")
	store := newStore(t)
	r, err := tsv.NewReader(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewIngester(store).Replay(context.Background(), r, ReplayOptions{})
	if err == nil || !strings.Contains(err.Error(), "record id "+id) || stxgraph.ErrorCode(err) != stxgraph.EINVALID {
		t.Fatalf("Replay error = %v, want an EINVALID error naming record %s", err, id)
	}
	if p.Applied != 5 || p.Done != 5 {
		t.Errorf("progress = %+v, want 5 records done and applied", p)
	}
	if n := count(t, store, "SELECT count(*) FROM event_observer_requests"); n != 5 {
		t.Errorf("logged requests = %d, want the 5 before the bad record", n)
	}
}

// A replayed log whose ids go down stops at the record that goes down, with the records before
// it applied: skipped, it would be lost, as its id is below one logged. A repeated id is applied
// once, and a replay run again skips the records it applied.
func TestReplayStopsAtDescendingID(t *testing.T) {
	t.Parallel()
	raw := fixtures.ReadGzip(t, fixtures.Path(t, "stacks/mocknet.tsv.gz"))
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	high, _, _ := strings.Cut(lines[4], "\t")
	low, _, _ := strings.Cut(lines[2], "\t")
	_, rest, _ := strings.Cut(lines[5], "\t")
	// Records 0..4, record 4 again, then record 5 under the id of record 2.
	file := strings.Join(lines[:5], "") + lines[4] + low + "\t" + rest + strings.Join(lines[6:], "")
	store := newStore(t)
	for run := 0; run < 2; run++ {
		r, err := tsv.NewReader(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewIngester(store).Replay(context.Background(), r, ReplayOptions{})
		if err == nil || !strings.Contains(err.Error(), "record id "+low+" follows id "+high) {
			t.Fatalf("run %d: Replay error = %v, want one naming record %s after %s", run, err, low, high)
		}
		if want := int64(5 * (1 - run)); p.Done != 6 || p.Applied != want {
			t.Errorf("run %d: progress = %+v, want 6 records done, %d applied", run, p, want)
		}
	}
	if n := count(t, store, "SELECT count(*) FROM event_observer_requests"); n != 5 {
		t.Errorf("logged requests = %d, want the 5 distinct ones before the descending id", n)
	}
}

// TestSyntheticBlocks applies the single-block payloads carrying Bitcoin-originated
// transactions (raw_tx 0x00) and checks the transactions stxgraph rebuilds.
func TestSyntheticBlocks(t *testing.T) {
	tests := []struct {
		file      string
		txID      string
		rows      int64 // 0: the operation left no events and is skipped
		typeID    int16
		sender    string
		recipient string
		amount    string
		function  string
	}{
		{file: "token_transfer-120-0xc0263c14f689ae757290f90765a28314497f52bd22b8bcbf87a12c764dd9d9be.json",
			txID: "0xc0263c14f689ae757290f90765a28314497f52bd22b8bcbf87a12c764dd9d9be", rows: 1, typeID: 0,
			sender: "SMQ5V9ZVGN62G1X3VJNM2MF64SG6JXS8SKVNTGZQ", recipient: "SP2ZP4GJDZJ1FDHTQ963F0292PE9J9752TZJ68F21", amount: "2000"},
		{file: "token_transfer-51655-0x2553c7c5b49eab5a0569e5d0f14c8f15945965a51976ac6697641003533986f6.json",
			txID: "0x2553c7c5b49eab5a0569e5d0f14c8f15945965a51976ac6697641003533986f6", rows: 1, typeID: 0, amount: "8333333333"},
		{file: "stx_lock-1379-0xb182e2aacfe2ed4257d66dd2ed4872f672cf10d873852b5218f41594d6b42b11.json",
			txID: "0xb182e2aacfe2ed4257d66dd2ed4872f672cf10d873852b5218f41594d6b42b11", rows: 1, typeID: 2,
			sender: "SM3KJBA4RZ7Z20KD2HBXNSXVPCR1D3CRAV6Q05MKT", function: "stack-stx"},
		{file: "stx_lock-51451-0xa64ad136e51a3a50eb1fdfd7eefa0b7aeb89e2521b2a2218d887477baa1775c9.json",
			txID: "0xa64ad136e51a3a50eb1fdfd7eefa0b7aeb89e2521b2a2218d887477baa1775c9", rows: 1, typeID: 2, function: "stack-stx"},
		{file: "failed-1352-0x2d825fbeb5368dcaeecdce053860e7d900bc66701751037f8b92dd7f8fd2a1b0.json",
			txID: "0x2d825fbeb5368dcaeecdce053860e7d900bc66701751037f8b92dd7f8fd2a1b0"},
		{file: "failed-6910-0x763e485177d772efdb1baede3276d5091a96e90fbb156d25427c1a2e7ea1d6fd.json",
			txID: "0x763e485177d772efdb1baede3276d5091a96e90fbb156d25427c1a2e7ea1d6fd"},
	}
	for _, tt := range tests {
		t.Run(tt.file[:20], func(t *testing.T) {
			t.Parallel()
			payload, err := os.ReadFile(fixtures.Path(t, filepath.Join("stacks/synthetic-blocks", tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			store := newStore(t)
			// These blocks come from the middle of mainnet: relabel them height 1, as the
			// reference's tests do, so that the parent check does not apply.
			payload = relabelHeight(t, payload)
			if _, err := NewIngester(store).Apply(context.Background(), Message{Path: PathNewBlock, Payload: payload, ReceivedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			id := hexID(t, tt.txID)
			if n := count(t, store, "SELECT count(*) FROM txs WHERE tx_id = ?", id); n != tt.rows {
				t.Fatalf("rows of %s = %d, want %d", tt.txID, n, tt.rows)
			}
			if tt.rows == 0 {
				return
			}
			var row db.Tx
			if err := store.DB.NewSelect().Model(&row).Where("tx_id = ?", id).Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
			if row.TypeID != tt.typeID || row.Nonce != "0" || row.FeeRate != "0" || len(row.RawTx) < 50 {
				t.Errorf("synthetic tx: type %d nonce %s fee %s raw %d bytes", row.TypeID, row.Nonce, row.FeeRate, len(row.RawTx))
			}
			if tt.sender != "" && row.SenderAddress != tt.sender {
				t.Errorf("sender = %s, want %s", row.SenderAddress, tt.sender)
			}
			if tt.recipient != "" && (row.TokenTransferRecipientAddress == nil || *row.TokenTransferRecipientAddress != tt.recipient) {
				t.Errorf("recipient = %v, want %s", row.TokenTransferRecipientAddress, tt.recipient)
			}
			if tt.amount != "" && (row.TokenTransferAmount == nil || *row.TokenTransferAmount != tt.amount) {
				t.Errorf("amount = %v, want %s", row.TokenTransferAmount, tt.amount)
			}
			if tt.function != "" && (row.ContractCallFunctionName == nil || *row.ContractCallFunctionName != tt.function) {
				t.Errorf("function = %v, want %s", row.ContractCallFunctionName, tt.function)
			}
		})
	}
}

func relabelHeight(t *testing.T, payload []byte) []byte {
	t.Helper()
	i := bytes.Index(payload, []byte(`"block_height":`))
	if i < 0 {
		t.Fatal("payload has no block_height")
	}
	j := i + len(`"block_height":`)
	k := j + bytes.IndexAny(payload[j:], ",}")
	return append(append(append([]byte{}, payload[:j]...), []byte(" 1")...), payload[k:]...)
}

// TestServer posts to the observer over HTTP: statuses, bodies and the 400/404/413 paths.
func TestServer(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	srv := httptest.NewServer(NewServer(store, Options{BodyLimit: 1 << 20, StoreRawEvents: true}))
	defer srv.Close()
	recs := fixtureRecords(t, "mocknet")
	tests := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"status", "GET", "/", "", 200, `"status":"ready"`},
		{"block", "POST", PathNewBlock, string(recs[0].Payload), 200, `{"result":"ok"}`},
		{"same block again", "POST", PathNewBlock, string(recs[0].Payload), 200, `{"result":"ok"}`},
		{"malformed JSON", "POST", PathNewBlock, `{"block_height": `, 400, "invalid JSON"},
		{"wrong type", "POST", PathNewBurnBlock, `{"burn_block_height": "x"}`, 400, "invalid JSON"},
		{"unknown path", "POST", "/nope", `{}`, 404, "no route handler for /nope"},
		{"too large", "POST", PathNewMempoolTx, `["` + strings.Repeat("00", 1<<20) + `"]`, 413, "exceeds the limit"},
		{"orphan block", "POST", PathNewBlock, string(recs[5].Payload), 500, "parent block"},
		{"stackerdb", "POST", PathStackerDBChunks, `{"contract_id": {"issuer": [26, [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]], "name": "signers-0"}, "modified_slots": []}`, 200, "ok"},
		{"proposal", "POST", PathProposalResponse, `{"result": "Accepted"}`, 200, "ok"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.contains) {
			t.Errorf("%s: %d %s, want %d containing %q", tt.name, resp.StatusCode, body, tt.status, tt.contains)
		}
	}
	if n := count(t, store, "SELECT count(*) FROM blocks"); n != 1 {
		t.Errorf("blocks = %d, want 1", n)
	}
	// Successful messages are logged (the repeated block too), failed ones are not.
	if n := count(t, store, "SELECT count(*) FROM event_observer_requests"); n != 4 {
		t.Errorf("logged requests = %d, want 4", n)
	}
	if n := count(t, store, "SELECT count(*) FROM stackerdb_chunks WHERE contract_id LIKE 'ST%.signers-0'"); n != 1 {
		t.Errorf("stackerdb chunks with a contract id = %d, want 1", n)
	}
}

// TestSyntheticStackStxRewardAddr gives a Bitcoin-originated stack-stx the pox-4 burnchain_op
// the node sends and checks that the rebuilt call pays the op's Bitcoin reward address.
func TestSyntheticStackStxRewardAddr(t *testing.T) {
	tests := []struct {
		addr string
		want string // repr of the pox-addr argument
	}{
		{"bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "(tuple (hashbytes 0x751e76e8199196d454941c45d1b3a323f1433bd6) (version 0x04))"},
		{"bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6", "(tuple (hashbytes 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798) (version 0x06))"},
		{"bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma7", ""},
		{"mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "(tuple (hashbytes 0x243f1394f44554f4ce3fd68649c19adc483ce924) (version 0x00))"},
		{"2N74VLxyT79VGHiBK2zEg3a9HJG7rEc5F3o", "(tuple (hashbytes 0x978a0121f9a24de65a13bab0c43c3a48be074eae) (version 0x01))"},
	}
	const file = "stx_lock-1379-0xb182e2aacfe2ed4257d66dd2ed4872f672cf10d873852b5218f41594d6b42b11.json"
	txID := hexID(t, "0xb182e2aacfe2ed4257d66dd2ed4872f672cf10d873852b5218f41594d6b42b11")
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(fixtures.Path(t, filepath.Join("stacks/synthetic-blocks", file)))
			if err != nil {
				t.Fatal(err)
			}
			payload := withStackStxOp(t, relabelHeight(t, raw), tt.addr)
			store := newStore(t)
			_, err = NewIngester(store).Apply(context.Background(), Message{Path: PathNewBlock, Payload: payload, ReceivedAt: time.Now()})
			if tt.want == "" { // a bech32 address whose checksum does not match
				if stxgraph.ErrorCode(err) != stxgraph.EINVALID || !strings.Contains(err.Error(), "reward_addr") {
					t.Fatalf("Apply = %v, want an EINVALID reward_addr error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rawTx []byte
			if err := store.DB.NewRaw("SELECT raw_tx FROM txs WHERE tx_id = ?", txID).Scan(context.Background(), &rawTx); err != nil {
				t.Fatal(err)
			}
			decoded, err := tx.Decode(rawTx)
			if err != nil {
				t.Fatal(err)
			}
			call, ok := decoded.Payload.(*tx.ContractCall)
			if !ok || len(call.Args) != 8 {
				t.Fatalf("payload %T, want a stack-stx call with the 8 pox-4 arguments", decoded.Payload)
			}
			if got := call.Args[1].Repr(); got != tt.want {
				t.Errorf("pox-addr = %s, want %s", got, tt.want)
			}
		})
	}
}

// withStackStxOp adds a pox-4 stack_stx burnchain_op to the payload's Bitcoin-originated
// transaction.
func withStackStxOp(t *testing.T, payload []byte, rewardAddr string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, x := range m["transactions"].([]any) {
		if tx := x.(map[string]any); tx["raw_tx"] == "0x00" {
			tx["burnchain_op"] = map[string]any{"stack_stx": map[string]any{
				"auth_id": 1, "burn_block_height": 100, "max_amount": "1000000000000", "num_cycles": 6,
				"reward_addr": rewardAddr, "signer_key": "02" + strings.Repeat("ab", 32), "stacked_ustx": "500000000000",
			}}
			found = true
		}
	}
	if !found {
		t.Fatal("no Bitcoin-originated transaction in the payload")
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
