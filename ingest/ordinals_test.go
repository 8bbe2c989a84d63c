package ingest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/internal/unisat"
)

const unisatFixture = "brc20/unisat-mainnet-779832-780025.txt.gz"

// unisatBlocks converts the real mainnet UniSat file into one payload per block.
func unisatBlocks(t testing.TB) []unisat.Block {
	t.Helper()
	blocks, err := unisat.Blocks(bytes.NewReader(fixtures.ReadGzip(t, fixtures.Path(t, unisatFixture))))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 10 {
		t.Fatalf("only %d blocks in the fixture", len(blocks))
	}
	return blocks
}

// brc20Digest fingerprints every BRC-20 table, so that two states compare exactly.
func brc20Digest(t testing.TB, store *db.Store) string {
	t.Helper()
	var out []string
	for _, table := range []string{"brc20_tokens", "brc20_balances", "brc20_balance_history", "brc20_operations", "brc20_transferables", "brc20_blocks"} {
		var n int
		var sum string
		err := store.DB.QueryRow(fmt.Sprintf("SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM %s AS t", table)).Scan(&n, &sum)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%d:%s", table, n, sum))
	}
	return strings.Join(out, " ")
}

// brc20Figures are the published figures of a token plus the number of tokens.
type brc20Figures struct {
	Minted         string
	Holders        int64 // maintained count
	CountedHolders int64 // counted from balances
	TxCount        int64
	Tokens         int64
}

func figures(t testing.TB, store *db.Store, ticker string) brc20Figures {
	t.Helper()
	var f brc20Figures
	err := store.DB.QueryRow(`SELECT coalesce((SELECT minted_supply::text FROM brc20_tokens WHERE ticker = ?0), ''),
		coalesce((SELECT holders FROM brc20_tokens WHERE ticker = ?0), 0),
		(SELECT count(*) FROM brc20_balances WHERE ticker = ?0 AND total_balance > 0),
		coalesce((SELECT tx_count FROM brc20_tokens WHERE ticker = ?0), 0),
		(SELECT count(*) FROM brc20_tokens)`, ticker).Scan(&f.Minted, &f.Holders, &f.CountedHolders, &f.TxCount, &f.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func post(t testing.TB, url, token string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+PathOrdinals, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func mustPost(t testing.TB, url, token string, body []byte) {
	t.Helper()
	if code, msg := post(t, url, token, body); code != http.StatusOK {
		t.Fatalf("POST %s: %d %s", PathOrdinals, code, msg)
	}
}

// The real mainnet file through the listener: the published ordi figures and ticker count,
// exact rollback of the last blocks, harmless replays, and refused requests that change nothing.
func TestOrdinalsRealData(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	const token = "s3cret-token"
	srv := httptest.NewServer(NewServer(store, Options{OrdinalsToken: token}))
	defer srv.Close()
	blocks := unisatBlocks(t)
	empty := brc20Digest(t, store)

	// Refusals: no token configured, missing and wrong bearer tokens, malformed payloads.
	off := httptest.NewServer(NewServer(store, Options{}))
	defer off.Close()
	if code, _ := post(t, off.URL, token, blocks[0].Payload); code != http.StatusForbidden {
		t.Errorf("without a configured token: %d, want 403", code)
	}
	for _, tok := range []string{"", "wrong", token + "x"} {
		if code, _ := post(t, srv.URL, tok, blocks[0].Payload); code != http.StatusUnauthorized {
			t.Errorf("bearer %q: %d, want 401", tok, code)
		}
	}
	bad := bytes.Replace(blocks[0].Payload, []byte(`"content_bytes":"0x`), []byte(`"content_bytes":"0xzz`), 1)
	for name, body := range map[string][]byte{
		"not JSON": []byte("{"), "no blocks": []byte(`{"chainhook":{}}`), "bad hex": bad,
		"no block identifier": []byte(`{"apply":[{"timestamp":1,"transactions":[]}]}`),
		// A valid block followed by a malformed one: the whole payload is refused.
		"half valid": []byte(`{"apply":[` + applyOf(blocks[0].Payload) +
			`,{"block_identifier":{"index":5,"hash":"0x12"},"transactions":[]}],"rollback":[]}`),
	} {
		if code, msg := post(t, srv.URL, token, body); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, code, msg)
		}
	}
	if got := brc20Digest(t, store); got != empty {
		t.Fatalf("refused requests changed the tables: %s", got)
	}

	// Notices of applied blocks.
	ln := pgdriver.NewListener(store.DB)
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ln.Listen(ctx, db.Brc20Channel); err != nil {
		t.Fatal(err)
	}
	notices := ln.Channel()

	const tail = 3
	for _, b := range blocks[:len(blocks)-tail] {
		mustPost(t, srv.URL, token, b.Payload)
	}
	first := <-notices
	n, err := db.ParseBrc20Notice(first.Payload)
	if err != nil || n.Height != blocks[0].Height || n.Hash != blocks[0].Hash || n.Rollback || len(n.Tickers) == 0 || n.Tickers[0] != "ordi" {
		t.Fatalf("first notice %+v, %v", n, err)
	}
	before, beforeFig := brc20Digest(t, store), figures(t, store, "ordi")
	for _, b := range blocks[len(blocks)-tail:] {
		mustPost(t, srv.URL, token, b.Payload)
	}
	after, fig := brc20Digest(t, store), figures(t, store, "ordi")
	// Published: ordi minted 8960661 with 2180 holders under the lower-case-key rule, 59 tickers.
	want := brc20Figures{Minted: "8960661000000000000000000", Holders: 2180, CountedHolders: 2180, TxCount: fig.TxCount, Tokens: 59}
	if fig != want {
		t.Fatalf("ordi figures %+v, want %+v", fig, want)
	}
	t.Logf("ordi after %d blocks: %+v", len(blocks), fig)
	if beforeFig == fig || before == after {
		t.Fatal("the last blocks changed nothing; the rollback check would prove nothing")
	}

	// Replays change nothing.
	for _, b := range blocks[len(blocks)-tail:] {
		mustPost(t, srv.URL, token, b.Payload)
	}
	mustPost(t, srv.URL, token, blocks[0].Payload)
	if got := brc20Digest(t, store); got != after {
		t.Fatal("replaying payloads changed the tables")
	}

	// Rolling back the last blocks (highest first, in one payload) restores the earlier state exactly.
	var rb []string
	for _, b := range blocks[len(blocks)-tail:] {
		rb = append(rb, rollbackOf(b.RollbackPayload))
	}
	mustPost(t, srv.URL, token, []byte(`{"apply":[],"rollback":[`+strings.Join(rb, ",")+`]}`))
	if got := brc20Digest(t, store); got != before {
		t.Fatalf("rollback did not restore the tables:\n got %s\nwant %s", got, before)
	}
	if got := figures(t, store, "ordi"); got != beforeFig {
		t.Fatalf("rollback figures %+v, want %+v", got, beforeFig)
	}
	// A rollback replayed is harmless; rolling back below the tip is refused.
	mustPost(t, srv.URL, token, blocks[len(blocks)-1].RollbackPayload)
	if code, _ := post(t, srv.URL, token, blocks[0].RollbackPayload); code != http.StatusBadRequest {
		t.Errorf("rollback below the tip: %d, want 400", code)
	}
	if got := brc20Digest(t, store); got != before {
		t.Fatal("refused or replayed rollbacks changed the tables")
	}
	// A reorg payload: roll back nothing new, apply the last blocks again.
	var ap []string
	for _, b := range blocks[len(blocks)-tail:] {
		ap = append(ap, applyOf(b.Payload))
	}
	mustPost(t, srv.URL, token, []byte(`{"apply":[`+strings.Join(ap, ",")+`],"rollback":[`+strings.Join(rb, ",")+`]}`))
	if got := brc20Digest(t, store); got != after {
		t.Fatal("applying the last blocks again did not give the same state")
	}
	var rolled bool
	for len(notices) > 0 {
		m := <-notices
		if n, err := db.ParseBrc20Notice(m.Payload); err == nil && n.Rollback && n.Height == blocks[len(blocks)-1].Height {
			rolled = true
		}
	}
	if !rolled {
		t.Error("no rollback notice for the last block")
	}
}

// applyOf and rollbackOf cut the one block out of a single-block payload.
func applyOf(payload []byte) string {
	s := strings.TrimPrefix(string(payload), `{"apply":[`)
	return s[:strings.Index(s, `],"chainhook"`)]
}

func rollbackOf(payload []byte) string {
	s := string(payload)
	s = s[strings.Index(s, `"rollback":[`)+len(`"rollback":[`):]
	return s[:len(s)-2]
}
