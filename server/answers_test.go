package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/server"
)

// TestQueryAnswersFollowTheChain: a query's answer (sent as text or as a persisted hash) is
// computed once per chain state and then served from memory with no statement; a block's notice
// makes the next request compute it again, and answers that do not only read the chain
// (mutations, the replication lag) are never kept.
func TestQueryAnswersFollowTheChain(t *testing.T) {
	t.Parallel()
	c := chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 1, sender: testSender}
	a := liveChain(t, server.Config{AnswerCacheBytes: 1 << 20}, c)

	q := `query Front($n: Int) { blocksConnection(first: $n) { nodes { height transactions(first: 2) { nodes { txId events(limit: 1) { __typename } } } } } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	vars := map[string]any{"n": 2}
	ask := func(withQuery, persisted bool) (string, int64) {
		t.Helper()
		body := map[string]any{"variables": vars}
		if persisted {
			body["extensions"] = ext
		}
		if withQuery {
			body["query"] = q
		}
		out, n := a.query(t, body)
		if len(out.Errors) > 0 {
			t.Fatalf("errors %+v", out.Errors)
		}
		return string(out.Data), n
	}

	first, computed := ask(true, true)
	again, served := ask(false, true)
	if again != first || !strings.Contains(first, `"height":3`) {
		t.Fatalf("answers %s then %s", first, again)
	}
	if computed == 0 || served != 0 {
		t.Errorf("the query ran %d statements, then %d repeated as a persisted hash; want some, then none", computed, served)
	}
	if text, n := ask(true, false); text != first || n != 0 {
		t.Errorf("the same document as text: %d statements, answer %s", n, text)
	}

	c.insertBlock(context.Background(), t, a.store, 4, true)
	a.announce(t, `{"kind":"block","block_height":4}`)
	moved, recomputed := ask(false, true)
	if !strings.Contains(moved, `"height":4`) {
		t.Fatalf("answer after block 4: %s", moved)
	}
	if recomputed == 0 {
		t.Error("after the block's notice the query ran no statement: an old answer was served")
	}
	if _, n := ask(false, true); n != 0 {
		t.Errorf("at the new state the query ran %d statements; a kept answer runs none", n)
	}

	// Another variable value is another answer.
	vars = map[string]any{"n": 1}
	if one, _ := ask(false, true); strings.Contains(one, `"height":3`) {
		t.Errorf("answer for n=1 holds a second block: %s", one)
	}

	for _, doc := range []string{`{ replicationLag { seconds } block(height: 1) { height } }`} {
		for range 2 {
			if _, n := a.query(t, map[string]any{"query": doc}); n == 0 {
				t.Errorf("%s was answered from memory", doc)
			}
		}
	}
}

// TestChainTipReadOncePerState: with no answer kept, the chain tip (which nearly every REST read
// names) is read from the database once per chain state the notices name; a block's notice makes
// the next read go to the database and find the new tip.
func TestChainTipReadOncePerState(t *testing.T) {
	t.Parallel()
	c := chain{blocks: 3, txsPerBlock: 1, eventsPerTx: 0, sender: testSender}
	a := liveChain(t, server.Config{}, c)
	tip := func() (string, int64) {
		t.Helper()
		out, n := a.query(t, map[string]any{"query": `{ chainTip { blockHeight } }`})
		if len(out.Errors) > 0 {
			t.Fatalf("errors %+v", out.Errors)
		}
		return string(out.Data), n
	}
	first, _ := tip()
	again, n := tip()
	if again != first || !strings.Contains(first, `"blockHeight":3`) {
		t.Fatalf("tips %s then %s", first, again)
	}
	if n != 0 {
		t.Errorf("the tip read again at the same state ran %d statements, want none", n)
	}

	c.insertBlock(context.Background(), t, a.store, 4, true)
	a.announce(t, `{"kind":"block","block_height":4}`)
	moved, n := tip()
	if !strings.Contains(moved, `"blockHeight":4`) || n != 1 {
		t.Errorf("after block 4's notice: %s in %d statements, want height 4 read in one", moved, n)
	}
}

// Identical requests that arrive while their answer is being computed wait for it: while the
// first one's statement waits on a lock, the others run none of their own, and every one gets
// the answer. REST paths and GraphQL documents alike.
func TestIdenticalRequestsWaitForOneComputation(t *testing.T) {
	t.Parallel()
	a := liveChain(t, server.Config{AnswerCacheBytes: 1 << 20}, chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 1, sender: testSender})
	gql := func(q string) string { return "/graphql?query=" + url.QueryEscape(q) }
	for _, tc := range []struct{ path, warm string }{
		{"/extended/v1/block?limit=2", "/extended/v1/block?limit=3"},
		{gql(`{ blocksConnection(first: 2) { nodes { height } } }`), gql(`{ blocksConnection(first: 3) { nodes { height } } }`)},
	} {
		path := tc.path
		t.Run(path, func(t *testing.T) {
			// The same statements with other parameters prepare them first: a statement being
			// prepared holds its preparation's lock in the process, not only in PostgreSQL.
			get(t, a.url+tc.warm)
			ctx := context.Background()
			tx, err := a.store.DB.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback() //nolint:errcheck // released below
			if _, err := tx.ExecContext(ctx, "LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE"); err != nil {
				t.Fatal(err)
			}
			const requests = 8
			bodies := make([]string, requests)
			var wg sync.WaitGroup
			for i := range requests {
				wg.Go(func() { bodies[i] = get(t, a.url+path) })
			}
			// Give every request time to arrive: each one computing its own answer would show as a
			// statement waiting on the lock.
			deadline := time.Now().Add(time.Second)
			for time.Now().Before(deadline) {
				if n := dbtest.LockWaits(t, tx); n > 1 {
					t.Fatalf("%d identical requests' statements wait on the lock; want the first one's alone", n)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			for i, b := range bodies {
				if b != bodies[0] || !strings.Contains(b, "height") {
					t.Errorf("request %d answered %.200s; the first %.200s", i, b, bodies[0])
				}
			}
		})
	}
}

// get is the body of a 200 answer to a GET of url.
func get(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: status %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// TestChainOnlyAnswersOutliveMempoolChanges: an answer whose fields all read the chain alone (a
// page of blocks with their transactions, events and senders' principals) is kept when only the
// mempool changes, while one that reads the mempool too (an account's balance with its pending
// figures), or that mixes both, is computed again; a block moves both.
func TestChainOnlyAnswersOutliveMempoolChanges(t *testing.T) {
	t.Parallel()
	c := chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 1, sender: testSender}
	a := liveChain(t, server.Config{AnswerCacheBytes: 1 << 20}, c)
	front := `{ blocksConnection(first: 2) { nodes { height burnBlock { height } transactions(first: 2) { nodes { txId sender { principal } events(limit: 1) { __typename ... on StxAssetEvent { eventIndex } } } } } } }`
	balance := `{ account(principal: "` + testSender + `") { stxBalance { balance locked } balanceHistory(points: 2) { blockHeight balance }
		events(first: 1) { nodes { __typename } } } chainTip { blockHeight burnBlockHeight }
		events(principal: "` + testSender + `", limit: 1) { __typename } contractEvents(contractId: "` + testSender + `.none") { eventIndex } }`
	pending := `{ account(principal: "` + testSender + `") { stxBalance { balance estimatedBalance } } chainTip { blockHeight mempoolUpdatedAt } }`
	both := `{ blocksConnection(first: 1) { nodes { height } } account(principal: "` + testSender + `") { principal stxBalance { balance pendingBalanceInbound } } }`
	ask := func(q string) int64 {
		t.Helper()
		out, n := a.query(t, map[string]any{"query": q})
		if len(out.Errors) > 0 {
			t.Fatalf("%s: errors %+v", q, out.Errors)
		}
		return n
	}
	queries := []string{front, balance, pending, both}
	for _, q := range queries {
		ask(q)
		if n := ask(q); n != 0 {
			t.Fatalf("%s repeated at one state ran %d statements", q, n)
		}
	}
	a.announce(t, `{"kind":"`+notices.KindMempool+`"}`)
	for _, c := range []struct {
		query string
		kept  bool
	}{{front, true}, {balance, true}, {pending, false}, {both, false}} {
		if n := ask(c.query); (n == 0) != c.kept {
			t.Errorf("after a mempool change %s ran %d statements; kept: %v", c.query, n, c.kept)
		}
	}
	c.insertBlock(context.Background(), t, a.store, 4, true)
	a.announce(t, `{"kind":"block","block_height":4}`)
	for _, q := range queries {
		if n := ask(q); n == 0 {
			t.Errorf("after a block %s was answered from memory", q)
		}
	}
}

// A document whose only mempool reads are the pending state of the accounts its root account
// fields name (their balance's pending figures, pending nonces, newest pending transaction), by
// a literal or a variable, is kept across a mempool change that names other principals, and
// computed again after one that names its account. A document reading the pending state of
// another account (a transaction's sender) reads the whole mempool.
func TestAccountAnswersOutliveOtherAccountsMempoolChanges(t *testing.T) {
	t.Parallel()
	c := chain{blocks: 2, txsPerBlock: 2, eventsPerTx: 1, sender: testSender}
	a := liveChain(t, server.Config{AnswerCacheBytes: 1 << 20}, c)
	own := map[string]any{"query": `query($p: String!) { account(principal: $p) { stxBalance { balance estimatedBalance }
		nonces { possibleNextNonce } latestMempoolTxId transactions(first: 1) { nodes { txId } } } }`, "variables": map[string]any{"p": testSender}}
	literal := map[string]any{"query": `{ account(principal: "` + testSender + `") { stxBalance { pendingBalanceInbound } } }`}
	// The same text but for the account the first change names: one shape, its own principal.
	other := map[string]any{"query": strings.Replace(literal["query"].(string), testSender, otherAccount, 1)}
	senders := map[string]any{"query": `{ account(principal: "` + testSender + `") { transactions(first: 1) { nodes { sender { stxBalance { estimatedBalance } } } } } }`}
	ask := func(body map[string]any) int64 {
		t.Helper()
		out, n := a.query(t, body)
		if len(out.Errors) > 0 {
			t.Fatalf("%v: errors %+v", body["query"], out.Errors)
		}
		return n
	}
	docs := []map[string]any{own, literal, other, senders}
	for _, d := range docs {
		ask(d)
		if n := ask(d); n != 0 {
			t.Fatalf("%v repeated at one state ran %d statements", d["query"], n)
		}
	}
	a.announce(t, `{"kind":"mempool","tx_ids":["0x01"],"principals":["`+otherAccount+`"]}`)
	for _, c := range []struct {
		doc  map[string]any
		kept bool
	}{{own, true}, {literal, true}, {other, false}, {senders, false}} {
		if n := ask(c.doc); (n == 0) != c.kept {
			t.Errorf("after a mempool change naming another account %v ran %d statements; kept: %v", c.doc["query"], n, c.kept)
		}
	}
	a.announce(t, `{"kind":"mempool_drop","tx_ids":["0x02"],"principals":["`+testSender+`"]}`)
	for _, d := range []map[string]any{own, literal, senders} {
		if n := ask(d); n == 0 {
			t.Errorf("after a mempool change naming its account %v was answered from memory", d["query"])
		}
	}
}

const otherAccount = "ST000000000000000000002AMW42H"

// liveChain starts an API that listens for the chain's notices on a store seeded with c, and
// returns it once it has heard of that chain.
func liveChain(t *testing.T, cfg server.Config, c chain) *api {
	t.Helper()
	a := startAPI(t, cfg, true)
	c.seed(t, a.store)
	dbtest.AwaitVersion(t, a.events, dbtest.NewChainVersion(notices.StateVersion{}))
	return a
}

// announce sends a chain notice as ingestion does and waits until the server has heard it.
func (a *api) announce(t *testing.T, payload string) {
	t.Helper()
	before := a.events.Version()
	if _, err := a.store.DB.ExecContext(context.Background(), "SELECT pg_notify(?, ?)", notices.EventsChannel, payload); err != nil {
		t.Fatal(err)
	}
	dbtest.AwaitVersion(t, a.events, func(v notices.StateVersion) bool { return v != before })
}

// Through a chain's messages one after the other (mempool transactions, blocks that mine them,
// burn blocks), every /graphql answer a caching server gives once it has heard of a message, kept
// or computed again, equals an uncached server's: documents kept across other accounts' mempool
// changes are kept across only those.
func TestKeptQueryAnswersFollowEveryMessage(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{AnswerCacheBytes: 1 << 20}, true)
	rest := replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 105) // up to its first mempool transaction
	if len(rest) == 0 || rest[0].Path != "/new_mempool_tx" {
		t.Fatal("the fixture's records moved: the first one left is not a mempool transaction")
	}
	h, err := server.New(server.Config{Store: a.store})
	if err != nil {
		t.Fatal(err)
	}
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	ctx := context.Background()
	dbtest.AwaitVersion(t, a.events, dbtest.NewChainVersion(notices.StateVersion{}))
	var principals []string
	if err := a.store.DB.NewRaw(`SELECT DISTINCT p FROM txs, LATERAL (VALUES (sender_address), (token_transfer_recipient_address)) v(p)
		WHERE p IS NOT NULL ORDER BY p LIMIT 6`).Scan(ctx, &principals); err != nil {
		t.Fatal(err)
	}
	own := `query($p: String!) { account(principal: $p) { stxBalance { balance estimatedBalance pendingBalanceOutbound }
		nonces { possibleNextNonce lastMempoolTxNonce detectedMempoolNonces } latestMempoolTxId } }`
	senders := `query($p: String!) { account(principal: $p) { transactions(first: 3) { nodes { txId sender { stxBalance { estimatedBalance } } } } } }`
	var bodies []map[string]any
	for _, p := range principals {
		for _, q := range []string{own, senders} {
			bodies = append(bodies, map[string]any{"query": q, "variables": map[string]any{"p": p}})
		}
	}
	bodies = append(bodies, map[string]any{"query": `{ blocks(limit: 2) { height txIds } chainTip { blockHeight mempoolUpdatedAt } }`})
	post := func(url string, body map[string]any) string {
		t.Helper()
		b, _ := json.Marshal(body)
		res, err := http.Post(url+"/graphql", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return string(out)
	}
	in := ingest.NewIngester(a.store)
	kept := 0
	for i, rec := range rest[:min(60, len(rest))] {
		if _, err := in.Apply(ctx, ingest.Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt}); err != nil {
			t.Fatalf("record %d: %v", rec.ID, err)
		}
		dbtest.AwaitHeardBRC20(t, a.store, a.events) // none of these documents reads BRC-20
		for _, body := range bodies {
			before := a.sql.n.Load()
			got := post(a.url, body)
			if a.sql.n.Load() == before {
				kept++
			}
			if want := post(plain.URL, body); got != want {
				t.Fatalf("after record %d (%s), %v with %v answered\n%s\nan uncached server\n%s", i, rec.Path, body["query"], body["variables"], got, want)
			}
		}
	}
	if kept == 0 {
		t.Error("no answer was served as kept: the test compares nothing kept")
	}
}

// TestKeptQueryAnswersGoOutWithTheirLength: an answer served from memory is sent with its length,
// as a computed one is, so that a large one goes out whole instead of chunked.
func TestKeptQueryAnswersGoOutWithTheirLength(t *testing.T) {
	t.Parallel()
	c := chain{blocks: 4, txsPerBlock: 8, eventsPerTx: 2, sender: testSender}
	a := liveChain(t, server.Config{AnswerCacheBytes: 1 << 20}, c)
	// Large enough that net/http would chunk it without a length.
	q := url.QueryEscape(`{ blocksConnection(first: 4) { nodes { hash transactions(first: 8) { nodes { txId events(limit: 2) { __typename } } } } } }`)
	var bodies []string
	for _, kept := range []bool{false, true} {
		before := a.sql.n.Load()
		resp, err := http.Get(a.url + "/graphql?query=" + q)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d, %v", resp.StatusCode, err)
		}
		if ran := a.sql.n.Load() - before; kept != (ran == 0) {
			t.Fatalf("kept %v, but the request ran %d statements", kept, ran)
		}
		if len(body) < 4096 || resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("kept %v: a %d-byte answer sent with length %d, transfer encoding %v; want its length, not chunked",
				kept, len(body), resp.ContentLength, resp.TransferEncoding)
		}
		bodies = append(bodies, string(body))
	}
	if bodies[0] != bodies[1] {
		t.Errorf("the kept answer differs from the computed one:\n%s\n%s", bodies[1], bodies[0])
	}
}
