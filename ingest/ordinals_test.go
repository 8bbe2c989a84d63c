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
	"github.com/stxgraph/stxgraph/db/notices"
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
	if err := ln.Listen(ctx, notices.Brc20Channel); err != nil {
		t.Fatal(err)
	}
	received := ln.Channel()
	// LISTEN takes effect once the server has read it, which Listen does not wait for: a notice
	// of our own, sent until it is heard back, says it has.
	probe := time.NewTicker(50 * time.Millisecond)
	defer probe.Stop()
	for heard := false; !heard; {
		select {
		case n := <-received:
			heard = n.Payload == "listening"
		case <-probe.C:
			if _, err := store.DB.ExecContext(ctx, "SELECT pg_notify(?, 'listening')", notices.Brc20Channel); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("our own notice was never heard")
		}
	}

	const tail = 3
	for _, b := range blocks[:len(blocks)-tail] {
		mustPost(t, srv.URL, token, b.Payload)
	}
	first := <-received
	for first.Payload == "listening" { // a probe sent before the first was heard back
		first = <-received
	}
	n, err := notices.ParseBrc20(first.Payload)
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
	// Known mainnet deploys (Hiro's responses): id, number, height, time, deployer, max/lim/dec.
	for _, want := range []string{
		"ordi b61b0172d95e266c18aea0c624db987e971a5d6d4ebc2aaed85da4642d635735i0 348020 779832 407 1678248991000 bc1pxaneaf3w4d27hl2y93fuft2xk6m4u3wc4rafevc6slgd7f5tq2dqyfgy06 21000000 1000 18",
		"meme 307ffac5d20fc188f723706f85d75c926550d536f5fd1113839586f38542971ci0 352242 779887 799 1678279462000 bc1pxwx69grfcccaphd6xa0fmrz3pqthftatmzvwa807r450j7n29mpqsmd28p 99999 1 18",
		"punk 2782fcc4173baddd337b6adaaca11535daa821ab6c234d8eee22257260ea7d07i0 356204 779964 1317 1678333933000 bc1p7pceefkw20p0uch3mk2x5rx8ylag4gpky7vl6390wgdtwpc8rqcqtk3paa 10000 1 18",
		"pepe 54d5fe82f5d284363fec6ae6137d0e5263e237caf15211078252c0d95af8943ai0 356777 779969 2402 1678338023000 bc1pfku4w9trutsz6eyqw4h3xm5k4xdw4e2xt2lr3nm7esa86kttmgzsxswqke 42069000 1000 18",
	} {
		var got string
		err := store.DB.QueryRow(`SELECT concat_ws(' ', ticker, inscription_id, inscription_number, block_height, tx_index, deploy_timestamp, address,
			(max_supply / 10::numeric ^ decimals)::numeric(40,0), (mint_limit / 10::numeric ^ decimals)::numeric(40,0), decimals)
			FROM brc20_tokens WHERE ticker = ?`, strings.Fields(want)[0]).Scan(&got)
		if err != nil || got != want {
			t.Errorf("token %q, %v; want %q", got, err, want)
		}
	}
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
	for len(received) > 0 {
		m := <-received
		if n, err := notices.ParseBrc20(m.Payload); err == nil && n.Rollback && n.Height == blocks[len(blocks)-1].Height {
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

// feedBlock builds one chainhook block of inscription activity; each op is one transaction.
type feedBlock struct {
	height int32
	salt   string // distinguishes forks of the same height
	txs    []string
}

func feedHash(s string) string {
	return fmt.Sprintf("%064x", []byte(s))[:64]
}

func (b *feedBlock) reveal(id, addr, body string, sat int64) *feedBlock {
	txid := feedHash(fmt.Sprintf("tx %d %s %d", b.height, b.salt, len(b.txs)))
	inscriber := "null"
	if addr != "-" {
		inscriber = `"` + addr + `"`
	}
	b.txs = append(b.txs, fmt.Sprintf(`{"transaction_identifier":{"hash":"0x%s"},"operations":[],"metadata":{"index":%d,"brc20_operation":null,"ordinal_operations":[
		{"inscription_revealed":{"content_bytes":"0x%x","content_type":"text/plain;charset=utf-8","inscription_number":{"jubilee":%d,"classic":%d},
		"inscription_id":"%s","inscriber_address":%s,"ordinal_number":%d,"satpoint_post_inscription":"%s:0:0"}}]}}`,
		txid, len(b.txs), body, sat, sat, id, inscriber, sat, txid))
	return b
}

func (b *feedBlock) move(sat int64, kind, to string) *feedBlock {
	txid := feedHash(fmt.Sprintf("tx %d %s %d", b.height, b.salt, len(b.txs)))
	b.txs = append(b.txs, fmt.Sprintf(`{"transaction_identifier":{"hash":"0x%s"},"metadata":{"index":%d,"ordinal_operations":[
		{"inscription_transferred":{"destination":{"type":"%s","value":"%s"},"ordinal_number":%d,"satpoint_post_transfer":"%s:0:0"}}]}}`,
		txid, len(b.txs), kind, to, sat, txid))
	return b
}

func (b *feedBlock) json() string {
	return fmt.Sprintf(`{"block_identifier":{"index":%d,"hash":"0x%s"},"timestamp":1678248991,"transactions":[%s]}`,
		b.height, feedHash(fmt.Sprintf("block %d %s", b.height, b.salt)), strings.Join(b.txs, ","))
}

func feed(apply, rollback []*feedBlock) []byte {
	list := func(bs []*feedBlock) string {
		var s []string
		for _, b := range bs {
			s = append(s, b.json())
		}
		return strings.Join(s, ",")
	}
	return []byte(`{"apply":[` + list(apply) + `],"rollback":[` + list(rollback) + `],"chainhook":{"uuid":"x","is_streaming_blocks":true}}`)
}

func balanceOf(t *testing.T, store *db.Store, ticker, addr string) string {
	t.Helper()
	var s string
	err := store.DB.QueryRow(`SELECT coalesce((SELECT avail_balance::text || '/' || trans_balance::text FROM brc20_balances WHERE ticker = ? AND address = ?), 'none')`, ticker, addr).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Transfers through the listener and their exact rollback: sends, fee returns, burns and the
// unsent transfer inscriptions come back block by block; a precomputed brc20_operation in the
// payload is ignored; a reorg payload swaps a block for its fork.
func TestOrdinalsTransfersAndRollback(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	srv := httptest.NewServer(NewServer(store, Options{OrdinalsToken: "t"}))
	defer srv.Close()
	const h = 779832
	b1 := (&feedBlock{height: h}).
		reveal("d1i0", "A", `{"p":"brc-20","op":"deploy","tick":"ordi","max":"21000000","lim":"1000","dec":"0"}`, 1).
		reveal("m1i0", "A", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1000"}`, 2).
		reveal("t1i0", "A", `{"p":"brc-20","op":"transfer","tick":"ordi","amt":"400"}`, 3).
		reveal("t2i0", "A", `{"p":"brc-20","op":"transfer","tick":"ordi","amt":"100"}`, 4).
		reveal("m2i0", "-", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1000"}`, 5) // no address: ignored
	b2 := (&feedBlock{height: h + 1}).
		move(3, "transferred", "B").
		move(4, "spent_in_fees", "").
		reveal("t3i0", "B", `{"p":"brc-20","op":"transfer","tick":"ordi","amt":"50"}`, 6)
	b3 := (&feedBlock{height: h + 2}).
		move(6, "burnt", "6a").
		move(3, "transferred", "C"). // second move: nothing
		reveal("d2i0", "C", `{"p":"brc-20","op":"deploy","tick":"PEPE","max":"10","dec":"0"}`, 7)

	var digests []string
	digests = append(digests, brc20Digest(t, store))
	for _, b := range []*feedBlock{b1, b2, b3} {
		mustPost(t, srv.URL, "t", feed([]*feedBlock{b}, nil))
		digests = append(digests, brc20Digest(t, store))
	}
	for addr, want := range map[string]string{"A": "600/0", "B": "350/0", "": "50/0", "C": "none"} {
		if got := balanceOf(t, store, "ordi", addr); got != want {
			t.Errorf("ordi balance %q = %s, want %s", addr, got, want)
		}
	}
	if f := figures(t, store, "ordi"); f.Minted != "1000" || f.Holders != 3 || f.CountedHolders != 3 || f.TxCount != 8 || f.Tokens != 2 {
		t.Errorf("ordi figures %+v", f)
	}
	if n := count(t, store, "SELECT count(*) FROM brc20_transferables"); n != 0 {
		t.Errorf("%d transferables left", n)
	}
	// Roll back one block at a time: each state comes back exactly.
	for i, b := range []*feedBlock{b3, b2, b1} {
		mustPost(t, srv.URL, "t", feed(nil, []*feedBlock{b}))
		if got, want := brc20Digest(t, store), digests[2-i]; got != want {
			t.Fatalf("after rolling back block %d:\n got %s\nwant %s", b.height, got, want)
		}
		if i == 1 {
			// Back at the end of b1: both transfers unsent again.
			if n := count(t, store, "SELECT count(*) FROM brc20_transferables WHERE address = 'A'"); n != 2 || balanceOf(t, store, "ordi", "A") != "500/500" {
				t.Errorf("after rolling back b2: %d transferables, A = %s", n, balanceOf(t, store, "ordi", "A"))
			}
		}
	}
	// All three again in one payload, then a reorg of the last block: a fork of b3 that sends
	// the 50 to D instead of burning it.
	mustPost(t, srv.URL, "t", feed([]*feedBlock{b1, b2, b3}, nil))
	if got := brc20Digest(t, store); got != digests[3] {
		t.Fatal("applying the blocks in one payload gave another state")
	}
	fork := (&feedBlock{height: h + 2, salt: "fork"}).move(6, "transferred", "D")
	mustPost(t, srv.URL, "t", feed([]*feedBlock{fork}, []*feedBlock{b3}))
	if got := balanceOf(t, store, "ordi", "D"); got != "50/0" || balanceOf(t, store, "ordi", "") != "none" ||
		count(t, store, "SELECT count(*) FROM brc20_tokens WHERE ticker = 'pepe'") != 0 {
		t.Errorf("after the reorg D = %s, burnt = %s", got, balanceOf(t, store, "ordi", ""))
	}
	// A payload's precomputed operation is not trusted: a reveal claiming a mint in
	// brc20_operation but with no BRC-20 content does nothing.
	fake := (&feedBlock{height: h + 3}).reveal("x1i0", "E", `hello`, 8)
	body := strings.Replace(string(feed([]*feedBlock{fake}, nil)), `"brc20_operation":null`,
		`"brc20_operation":{"mint":{"tick":"ordi","amt":"1000","address":"E","inscription_id":"x1i0"}}`, 1)
	mustPost(t, srv.URL, "t", []byte(body))
	if got := balanceOf(t, store, "ordi", "E"); got != "none" {
		t.Errorf("a precomputed brc20_operation was applied: E = %s", got)
	}
	// A NUL in a stored string cannot be written: the payload is refused, not retried forever.
	before := brc20Digest(t, store)
	nul := (&feedBlock{height: h + 4}).reveal("n1i0", `F\u0000`, `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1"}`, 9)
	if code, msg := post(t, srv.URL, "t", feed([]*feedBlock{nul}, nil)); code != http.StatusBadRequest || brc20Digest(t, store) != before {
		t.Errorf("NUL in an address: %d %s", code, msg)
	}
}
