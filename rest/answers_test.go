package rest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/respcache"
	"github.com/stxgraph/stxgraph/rest"
)

// fixtureLines reads a shared TSV fixture's records, one per line.
func fixtureLines(t *testing.T, fixture string) [][]byte {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, "stacks/"+fixture+".tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// pathAt is the index of the first record from index from on that was sent to path, or -1.
func pathAt(lines [][]byte, path string, from int) int {
	for i := max(from, 0); i < len(lines); i++ {
		if bytes.Contains(lines[i], []byte("\t"+path+"\t")) {
			return i
		}
	}
	return -1
}

// replayLines applies records through the real ingestion path.
func replayLines(t *testing.T, store *db.Store, lines [][]byte) {
	t.Helper()
	r, err := tsv.NewReader(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
}

// listeningAPI is a chain replayed into a fresh store, a listener that has heard of it, a REST
// server keeping answers at the state it names and one keeping none.
type listeningAPI struct {
	store      *db.Store
	events     *notices.Listener
	cache      *respcache.Cache
	srv, plain *httptest.Server
}

func listening(t *testing.T, lines [][]byte) listeningAPI {
	t.Helper()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	replayLines(t, store, lines)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	events, err := store.Listen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.AwaitVersion(t, events, dbtest.NewChainVersion(notices.StateVersion{}))
	cache := respcache.New(1<<20, events)
	return listeningAPI{store: store, events: events, cache: cache,
		srv: serve(t, store, rest.Options{Answers: cache}), plain: serve(t, store, rest.Options{})}
}

// sameAsUncached GETs path from the caching server and from the uncached one, reports where
// their bodies or ETags differ, and returns the caching server's body and the statements it ran.
func (l listeningAPI) sameAsUncached(t *testing.T, path string) (string, int64) {
	t.Helper()
	get := func(base string) (string, string) {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s %v", path, res.StatusCode, body, err)
		}
		return string(body), res.Header.Get("ETag")
	}
	before := l.store.Statements()
	body, etag := get(l.srv.URL)
	n := l.store.Statements() - before
	if want, wantTag := get(l.plain.URL); body != want || etag != wantTag {
		t.Errorf("GET %s answered (ETag %s)\n%s\nan uncached server (ETag %s)\n%s", path, etag, body, wantTag, want)
	}
	return body, n
}

// principals are the senders and STX recipients of the chain's transactions, in order, at most
// limit of them (0: all).
func (l listeningAPI) principals(t *testing.T, limit int) []string {
	t.Helper()
	q := `SELECT DISTINCT p FROM txs, LATERAL (VALUES (sender_address), (token_transfer_recipient_address)) v(p)
		WHERE p IS NOT NULL ORDER BY p`
	if limit > 0 {
		q += " LIMIT " + strconv.Itoa(limit)
	}
	var ps []string
	if err := l.store.DB.NewRaw(q).Scan(context.Background(), &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestAnswersKeptUntilTheChainMoves: a REST answer is computed once, served from memory with no
// statement while the chain state it reads stays (a matching If-None-Match too, and across a
// mempool change for a read of the chain alone), and computed again (with the new block in it)
// once the block's notice is heard.
func TestAnswersKeptUntilTheChainMoves(t *testing.T) {
	lines := fixtureLines(t, "mocknet")
	last := -1
	for i := pathAt(lines, "/new_block", 0); i >= 0; i = pathAt(lines, "/new_block", i+1) {
		last = i
	}
	if last < 1 {
		t.Fatal("fixture has no block to ingest last")
	}
	l := listening(t, lines[:last])
	store, events, cache, srv, plain := l.store, l.events, l.cache, l.srv, l.plain
	version := events.Version()
	ctx := context.Background()
	getPath := func(base, path, etag string) (*http.Response, string, int64) {
		t.Helper()
		before := store.Statements()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || (res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotModified) {
			t.Fatalf("%d %s %v", res.StatusCode, body, err)
		}
		return res, string(body), store.Statements() - before
	}
	get := func(base, etag string) (*http.Response, string, int64) {
		t.Helper()
		return getPath(base, "/extended/v1/block?limit=3", etag)
	}

	res, first, computed := get(srv.URL, "")
	_, again, served := get(srv.URL, "")
	if again != first {
		t.Fatalf("cached answer differs:\n%s\n%s", again, first)
	}
	if computed == 0 || served != 0 {
		t.Errorf("first read ran %d statements, the repeated one %d: want some, then none", computed, served)
	}
	if s := cache.Stats(); s.Hits != 1 || s.Entries != 1 {
		t.Errorf("after two reads: %+v; want 1 hit, 1 entry", s)
	}
	if res304, _, n := get(srv.URL, res.Header.Get("ETag")); res304.StatusCode != http.StatusNotModified || n != 0 {
		t.Errorf("If-None-Match with the kept ETag: %d after %d statements; want 304 after none", res304.StatusCode, n)
	}

	// A mempool change leaves the answers that read only the chain: the block list, and an
	// account's mined transactions, whose ETag leaves its pending ones out. Its balance, which
	// counts them, is computed again.
	var sender string
	if err := store.DB.NewRaw("SELECT sender_address FROM txs WHERE canonical ORDER BY block_height DESC, tx_index LIMIT 1").Scan(ctx, &sender); err != nil {
		t.Fatal(err)
	}
	chainOnly := []string{"/extended/v1/address/" + sender + "/transactions_with_transfers", "/extended/v2/addresses/" + sender + "/transactions"}
	kept := map[string]string{}
	for _, path := range chainOnly {
		_, kept[path], _ = getPath(srv.URL, path, "")
	}
	balance := "/extended/v1/address/" + sender + "/stx"
	getPath(srv.URL, balance, "")
	mempool := events.Version().Mempool
	if _, err := store.DB.ExecContext(ctx, "SELECT pg_notify(?, ?)", notices.EventsChannel, `{"kind":"mempool","tx_ids":[]}`); err != nil {
		t.Fatal(err)
	}
	dbtest.AwaitVersion(t, events, func(v notices.StateVersion) bool { return v.Mempool != mempool })
	if _, same, n := get(srv.URL, ""); n != 0 || same != first {
		t.Errorf("after a mempool notice the block list ran %d statements; it reads only the chain", n)
	}
	for _, path := range chainOnly {
		if _, same, n := getPath(srv.URL, path, ""); n != 0 || same != kept[path] {
			t.Errorf("after a mempool notice %s ran %d statements; it reads only the chain", path, n)
		}
	}
	if _, _, n := getPath(srv.URL, balance, ""); n == 0 {
		t.Errorf("after a mempool notice %s was served as kept; it counts pending transactions", balance)
	}

	hits := cache.Stats().Hits
	replayLines(t, store, lines[last:])
	dbtest.AwaitVersion(t, events, dbtest.NewChainVersion(version))
	_, moved, recomputed := get(srv.URL, "")
	if moved == first {
		t.Fatal("answer from before the new block served after it")
	}
	if _, want, _ := get(plain.URL, ""); moved != want {
		t.Errorf("recomputed answer differs from an uncached server's:\n%s\n%s", moved, want)
	}
	if recomputed <= served {
		t.Errorf("read after the block ran %d statements, a cached one %d: not recomputed", recomputed, served)
	}
	if s := cache.Stats(); s.Hits != hits {
		t.Errorf("after the block: %+v; want still %d hits", s, hits)
	}
	if _, _, n := get(srv.URL, ""); n != served {
		t.Errorf("read at the new tip ran %d statements; a cached read runs %d", n, served)
	}
}

// A balance counts its principal's own pending transactions alone: a mempool transaction kept
// answers of the principals it names are computed again, those of the others are served as kept,
// and every answer equals an uncached server's. A block, which prunes the transactions it mines
// from the mempool, has the mempool's fee figures computed again.
func TestPendingAnswersFollowTheirPrincipals(t *testing.T) {
	lines := fixtureLines(t, "epoch-3-transition")
	m := pathAt(lines, "/new_mempool_tx", 0)
	block := pathAt(lines, "/new_block", m+1)
	if m < 0 || block < 0 {
		t.Fatal("fixture has no mempool transaction followed by a block")
	}
	l := listening(t, lines[:m])
	store, events := l.store, l.events
	ctx := context.Background()
	get := func(path string) (string, int64) { t.Helper(); return l.sameAsUncached(t, path) }

	principals := l.principals(t, 0)
	balance := func(p string) string { return "/extended/v1/address/" + p + "/stx" }
	for _, p := range principals {
		get(balance(p))
	}
	const fees = "/extended/v2/mempool/fees"
	get(fees)
	// A mined transaction's lookup is tagged with the whole mempool's last change, as the
	// reference's: its tag moves with every mempool change.
	var mined string
	if err := store.DB.NewRaw("SELECT '0x' || encode(tx_id, 'hex') FROM txs WHERE canonical ORDER BY block_height DESC LIMIT 1").Scan(ctx, &mined); err != nil {
		t.Fatal(err)
	}
	multiple := "/extended/v1/tx/multiple?tx_id=" + mined
	get(multiple)

	mempool := events.Version().Mempool
	replayLines(t, store, lines[m:m+1])
	dbtest.AwaitVersion(t, events, func(v notices.StateVersion) bool { return v.Mempool != mempool })
	var named []string
	if err := store.DB.NewRaw(`SELECT DISTINCT p FROM mempool_txs, LATERAL (VALUES (sender_address), (sponsor_address),
		(token_transfer_recipient_address), (smart_contract_contract_id)) v(p) WHERE p IS NOT NULL`).Scan(ctx, &named); err != nil {
		t.Fatal(err)
	}
	var recomputed, kept int
	for _, p := range principals {
		_, n := get(balance(p))
		switch {
		case slices.Contains(named, p) && n == 0:
			t.Errorf("%s's balance served as kept after a pending transaction of its own", p)
		case !slices.Contains(named, p) && n != 0:
			t.Errorf("%s's balance computed again (%d statements) after a pending transaction of others", p, n)
		case n == 0:
			kept++
		default:
			recomputed++
		}
	}
	if recomputed == 0 || kept == 0 {
		t.Fatalf("of %d balances %d were named by the pending transaction (%q), %d not: the fixture shows nothing", len(principals), recomputed, named, kept)
	}

	if _, n := get(fees); n == 0 {
		t.Error("the fee figures were served as kept after a mempool change")
	}
	get(multiple)
	version := events.Version()
	replayLines(t, store, lines[m+1:block+1])
	dbtest.AwaitVersion(t, events, dbtest.NewChainVersion(version))
	if _, n := get(fees); n == 0 {
		t.Error("the fee figures were served as kept after a block")
	}
}

// Through a chain's messages one after the other (mempool transactions, blocks that mine them,
// burn blocks), every answer a caching server gives once it has heard of a message, kept or
// computed again, equals an uncached server's, body and ETag: the answers that outlive some
// changes outlive only those that leave them as they are.
func TestKeptAnswersFollowEveryMessage(t *testing.T) {
	lines := fixtureLines(t, "epoch-3-transition")
	start := pathAt(lines, "/new_mempool_tx", 0)
	if start < 0 {
		t.Fatal("fixture has no mempool transaction")
	}
	l := listening(t, lines[:start])
	ctx := context.Background()
	principals := l.principals(t, 6)
	var contracts []string
	if err := l.store.DB.NewRaw(`SELECT DISTINCT smart_contract_contract_id FROM txs WHERE smart_contract_contract_id IS NOT NULL
		ORDER BY 1 LIMIT 3`).Scan(ctx, &contracts); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/extended/v2/mempool/fees", "/extended/v1/block?limit=2",
		"/extended/v2/smart-contracts/status?contract_id=" + strings.Join(contracts, "&contract_id=")}
	for _, p := range principals {
		paths = append(paths, "/extended/v1/address/"+p+"/stx", "/extended/v2/addresses/"+p+"/balances/stx?include_mempool=true")
	}
	// The transactions the messages bring (a mempool message lists raw transactions, whose id is
	// their SHA-512/256), looked up before and after they are mined.
	end := min(start+60, len(lines))
	for _, line := range lines[start:end] {
		if bytes.Contains(line, []byte("\t/new_mempool_tx\t")) {
			for _, m := range regexp.MustCompile(`"0x([0-9a-f]+)"`).FindAllSubmatch(line, -1) {
				raw, err := hex.DecodeString(string(m[1]))
				if err != nil {
					t.Fatal(err)
				}
				id := sha512.Sum512_256(raw)
				paths = append(paths, "/extended/v1/tx/multiple?tx_id=0x"+hex.EncodeToString(id[:]))
			}
		}
	}
	found := false
	for i := start; i < end; i++ {
		replayLines(t, l.store, lines[i:i+1])
		dbtest.AwaitHeardBRC20(t, l.store, l.events) // none of these answers reads BRC-20
		for _, p := range paths {
			body, _ := l.sameAsUncached(t, p)
			found = found || (strings.Contains(p, "tx/multiple") && strings.Contains(body, `"found":true`))
		}
		if t.Failed() {
			t.Fatalf("answers differ after message %d (%s)", i, lines[i][:min(len(lines[i]), 60)])
		}
	}
	if !found {
		t.Error("no transaction the messages brought was found: the lookups compare nothing")
	}
	if s := l.cache.Stats(); s.Hits == 0 {
		t.Errorf("no answer was served as kept (%+v): the test compares nothing kept", s)
	}
}
