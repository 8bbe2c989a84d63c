package faucet_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/faucet/pgstore"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/server"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/node"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// testKeyHex derives a compressed-key private key (hex, 33 bytes ending in 01) from a label.
func testKeyHex(label string) string {
	h := sha256.Sum256([]byte("stxgraph stx faucet test " + label))
	return hex.EncodeToString(h[:]) + "01"
}

// testnetAddress derives a distinct valid testnet address from a label.
func testnetAddress(label string) string {
	h := sha256.Sum256([]byte("recipient " + label))
	return c32.Address{Version: c32.TestnetP2PKH, Hash160: [20]byte(h[:20])}.String()
}

type envOptions struct {
	chainID uint32
	keys    []string // nil: one funded key
	limits  *faucet.Limits
	trusted []netip.Prefix
}

// env is an API server with the faucets on loopback, its database and a test stacks-node.
type env struct {
	t       *testing.T
	opts    envOptions
	store   *db.Store
	node    *stacksNode
	keys    []string
	senders []string // the keys' addresses
	url     string
}

func newEnv(t *testing.T, opts envOptions) *env {
	t.Helper()
	if opts.keys == nil {
		opts.keys = []string{testKeyHex(t.Name())}
	}
	e := &env{t: t, opts: opts, store: dbtest.New(t), node: newStacksNode(t), keys: opts.keys}
	t.Cleanup(func() { e.store.Close() })
	e.start()
	return e
}

// start (re)starts the API process: a new faucet Service and server on the same database.
func (e *env) start() {
	e.t.Helper()
	stx, err := faucet.NewSTX(faucet.STXConfig{Node: node.New(e.node.srv.URL, nil), Store: e.store, Keys: e.keys})
	if err != nil {
		e.t.Fatal(err)
	}
	if stx != nil {
		e.senders = stx.Addresses()
	}
	limits := faucet.DefaultLimits()
	if e.opts.limits != nil {
		limits = *e.opts.limits
	}
	chainID := e.opts.chainID
	if chainID == 0 {
		chainID = tx.ChainIDTestnet
	}
	svc := faucet.New(faucet.Config{Store: e.store, ChainID: chainID, STX: stx, Limits: limits})
	h, err := server.New(server.Config{Store: e.store, Faucet: svc, TrustedProxies: e.opts.trusted, ServerVersion: "test"})
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	e.t.Cleanup(srv.Close)
	e.url = srv.URL
}

type reply struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// post sends a POST to the API; header may set X-Forwarded-For and Content-Type.
func (e *env) post(path string, header map[string]string, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("POST %s: %d %q is not a JSON object", path, resp.StatusCode, raw)
	}
	e.checkSafe(r)
	return r
}

func (e *env) stx(addr string, stacking bool) reply {
	e.t.Helper()
	q := url.Values{"address": {addr}}
	if stacking {
		q.Set("stacking", "true")
	}
	return e.post("/extended/v1/faucets/stx?"+q.Encode(), nil, "")
}

// checkSafe fails when a body leaks the node's address or a faucet key, and checks the error shape.
func (e *env) checkSafe(r reply) {
	e.t.Helper()
	nodeHost := strings.TrimPrefix(e.node.srv.URL, "http://")
	_, port, _ := strings.Cut(nodeHost, ":")
	for _, secret := range append([]string{nodeHost, ":" + port, "goroutine", ".go:"}, e.keys...) {
		if strings.Contains(r.raw, secret) || (len(secret) > 64 && strings.Contains(r.raw, secret[:64])) {
			e.t.Errorf("body %q leaks %q", r.raw, secret)
		}
	}
	if r.status != http.StatusOK {
		msg, _ := r.body["error"].(string)
		if len(r.body) != 2 || r.body["success"] != false || msg == "" {
			e.t.Errorf("error body %s, want {\"error\":\"…\",\"success\":false}", r.raw)
		}
	}
}

// checkTx decodes a 200 body's transaction and checks it against what the node received.
func (e *env) checkTx(r reply, recipient string, amount uint64) *tx.Transaction {
	e.t.Helper()
	if r.status != http.StatusOK || r.body["success"] != true {
		e.t.Fatalf("status %d body %s", r.status, r.raw)
	}
	id, _ := r.body["txId"].(string)
	rawHex, _ := r.body["txRaw"].(string)
	t, err := tx.DecodeHex(rawHex)
	if err != nil {
		e.t.Fatalf("txRaw %q: %v", rawHex, err)
	}
	if t.TxIDHex() != id || !strings.HasPrefix(id, "0x") {
		e.t.Errorf("txId %s, the raw tx hashes to %s", id, t.TxIDHex())
	}
	if got := e.node.byID(id); got == nil || hex.EncodeToString(got.Encode()) != rawHex {
		e.t.Errorf("the node did not accept %s as returned", id)
	}
	p := t.Payload.(*tx.TokenTransfer)
	if p.Recipient.String() != recipient || p.Amount != amount {
		e.t.Errorf("tx pays %d to %s, want %d to %s", p.Amount, p.Recipient, amount, recipient)
	}
	if err := t.Verify(); err != nil {
		e.t.Error(err)
	}
	return t
}

func TestSTXPayout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 7)
	e.node.feeRate = 3
	to := testnetAddress("payout")
	r := e.stx(to, false)
	got := e.checkTx(r, to, faucet.DefaultSTXAmount)
	if got.Origin.Nonce != 7 || got.Origin.Fee != 3*180 || got.SenderAddress() != e.senders[0] || got.ChainID != tx.ChainIDTestnet {
		t.Errorf("nonce %d fee %d sender %s chain %#x, want 7, 540, %s, testnet", got.Origin.Nonce, got.Origin.Fee, got.SenderAddress(), got.ChainID, e.senders[0])
	}

	// A contract principal on testnet is a valid recipient too; the next nonce follows.
	contract := testnetAddress("contract") + ".vault"
	got = e.checkTx(e.stx(contract, false), contract, faucet.DefaultSTXAmount)
	if got.Origin.Nonce != 8 {
		t.Errorf("second payout nonce %d, want 8", got.Origin.Nonce)
	}

	// GraphQL runs the same mutation.
	body := `{"query":"mutation($a:String!){faucetStx(address:$a){success txId txRaw}}","variables":{"a":"` + to + `"}}`
	resp, err := http.Post(e.url+"/graphql", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var gql struct {
		Data struct {
			FaucetStx struct {
				Success bool
				TxID    string
				TxRaw   string
			}
		}
		Errors []any
	}
	if err := json.NewDecoder(resp.Body).Decode(&gql); err != nil || len(gql.Errors) > 0 || !gql.Data.FaucetStx.Success {
		t.Fatalf("graphql: %v %+v", err, gql)
	}
	if tx := e.node.byID(gql.Data.FaucetStx.TxID); tx == nil || tx.Origin.Nonce != 9 {
		t.Errorf("graphql payout %s not accepted with nonce 9", gql.Data.FaucetStx.TxID)
	}
}

// The nonce is the highest of the node's, the indexed mempool's and the faucet's own.
func TestSTXNonceFromIndexedMempool(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 2)
	// A transfer of the faucet key with nonce 11 reaches the indexer's mempool (but not this node).
	pending, _ := tx.NewTokenTransfer(tx.TransferOptions{Recipient: mustPrincipal(t, testnetAddress("x")), Amount: 1, Nonce: 11, Fee: 180})
	key, compressed, _ := tx.ParsePrivateKey(e.keys[0])
	if err := pending.SignSingleSig(key, compressed); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal([]string{db.Hex(pending.Encode())})
	if _, err := ingest.NewIngester(e.store).Apply(context.Background(), ingest.Message{Path: ingest.PathNewMempoolTx, Payload: payload, ReceivedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	to := testnetAddress("after mempool")
	if got := e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount); got.Origin.Nonce != 12 {
		t.Errorf("nonce %d, want 12 (after the indexed mempool nonce 11)", got.Origin.Nonce)
	}
}

func mustPrincipal(t *testing.T, s string) c32.Principal {
	p, err := c32.ParsePrincipal(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// 50 concurrent requests give 50 valid transfers with consecutive nonces, across two API
// processes sharing the key and the database.
func TestSTXConcurrentNonces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{limits: &faucet.Limits{PerAddress: 5, AddressWindow: time.Minute}})
	e.node.fund(e.senders[0], 1_000_000_000_000, 3)
	e.node.mineEvery = 10
	first := e.url
	e.start()
	urls := []string{first, e.url}
	const n = 50
	var wg sync.WaitGroup
	replies := make([]reply, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := url.Values{"address": {testnetAddress("concurrent " + strconv.Itoa(i))}}
			req, _ := http.NewRequest(http.MethodPost, urls[i%2]+"/extended/v1/faucets/stx?"+q.Encode(), nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			replies[i] = reply{status: resp.StatusCode, raw: string(raw)}
			json.Unmarshal(raw, &replies[i].body) //nolint:errcheck // checked below
		}()
	}
	wg.Wait()
	var nonces []int
	for i, r := range replies {
		e.checkSafe(r)
		got := e.checkTx(r, testnetAddress("concurrent "+strconv.Itoa(i)), faucet.DefaultSTXAmount)
		nonces = append(nonces, int(got.Origin.Nonce))
	}
	sort.Ints(nonces)
	for i, nonce := range nonces {
		if nonce != 3+i {
			t.Fatalf("nonces %v, want 3..%d each once", nonces, 3+n-1)
		}
	}
	if got := len(e.node.txs()); got != n {
		t.Errorf("node accepted %d transactions, want %d", got, n)
	}
}

// The sixth request for an address within five minutes is refused, also by a restarted API.
func TestSTXAddressLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	to := testnetAddress("limited")
	for range 5 {
		e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount)
	}
	for _, restart := range []bool{false, true} {
		if restart {
			e.start()
		}
		r := e.stx(to, false)
		retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
		if r.status != http.StatusTooManyRequests || retry < 1 || retry > 300 || r.body["error"] != "Too many requests" {
			t.Errorf("6th request (restarted %v): %d Retry-After %q %s", restart, r.status, r.header.Get("Retry-After"), r.raw)
		}
	}
	if got := len(e.node.txs()); got != 5 {
		t.Errorf("node got %d transactions, want 5", got)
	}
	// Another address is not affected.
	other := testnetAddress("not limited")
	e.checkTx(e.stx(other, false), other, faucet.DefaultSTXAmount)
}

// A stacking payout is the next cycle's minimum plus 20%, once per address in two days.
func TestSTXStacking(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	e.node.stacking = 90_000_000_000
	to := testnetAddress("stacker")
	e.checkTx(e.stx(to, true), to, 108_000_000_000)
	r := e.stx(to, true)
	retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != http.StatusTooManyRequests || retry < 47*3600 || retry > 48*3600 {
		t.Errorf("second stacking request: %d Retry-After %q %s", r.status, r.header.Get("Retry-After"), r.raw)
	}
	// A plain payout to the same address still fits its own limit.
	e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount)
}

// The client-IP limit counts the TCP peer unless the peer is a trusted proxy: a forged
// X-Forwarded-For from anyone else changes nothing.
func TestClientIPLimit(t *testing.T) {
	t.Parallel()
	limits := faucet.Limits{PerAddress: 5, AddressWindow: time.Minute, PerIP: 2, IPWindow: time.Minute}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		allowed int
	}{
		{"untrusted peer", nil, 2},
		{"trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{limits: &limits, trusted: tc.trusted})
			e.node.fund(e.senders[0], 1_000_000_000_000, 0)
			var ok int
			for i := range 4 {
				to := testnetAddress(fmt.Sprintf("ip %d", i))
				r := e.post("/extended/v1/faucets/stx?address="+to, map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i)}, "")
				switch r.status {
				case http.StatusOK:
					ok++
				case http.StatusTooManyRequests:
					if r.header.Get("Retry-After") == "" {
						t.Errorf("429 without Retry-After")
					}
				default:
					t.Errorf("request %d: %d %s", i, r.status, r.raw)
				}
			}
			if ok != tc.allowed {
				t.Errorf("%d of 4 requests paid out, want %d", ok, tc.allowed)
			}
		})
	}
}

// A node rejection that says the key is stuck or empty moves the payout to the next key; with
// every key empty the answer is 503 "out of funds"; other rejections are a sanitised 500.
func TestSTXKeyRotation(t *testing.T) {
	t.Parallel()
	for _, reason := range []string{"ConflictingNonceInMempool", "TooMuchChaining", "NotEnoughFunds"} {
		t.Run(reason, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{keys: []string{testKeyHex(t.Name() + "a"), testKeyHex(t.Name() + "b")}})
			e.node.fund(e.senders[0], 1_000_000_000_000, 4)
			e.node.fund(e.senders[1], 1_000_000_000_000, 9)
			e.node.reject[e.senders[0]] = reason
			to := testnetAddress("rotated")
			got := e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount)
			if got.SenderAddress() != e.senders[1] || got.Origin.Nonce != 9 {
				t.Errorf("paid from %s nonce %d, want the second key %s nonce 9", got.SenderAddress(), got.Origin.Nonce, e.senders[1])
			}
			// The working key stays in use.
			to2 := testnetAddress("rotated 2")
			if got := e.checkTx(e.stx(to2, false), to2, faucet.DefaultSTXAmount); got.SenderAddress() != e.senders[1] || got.Origin.Nonce != 10 {
				t.Errorf("next payout from %s nonce %d, want %s nonce 10", got.SenderAddress(), got.Origin.Nonce, e.senders[1])
			}
		})
	}
	t.Run("all keys empty", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOptions{keys: []string{testKeyHex(t.Name() + "a"), testKeyHex(t.Name() + "b")}})
		e.node.fund(e.senders[0], 100, 0) // too little: the faucet sees it before broadcasting
		e.node.fund(e.senders[1], 1_000_000_000_000, 0)
		e.node.reject[e.senders[1]] = "NotEnoughFunds"
		to := testnetAddress("empty")
		r := e.stx(to, false)
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body["error"].(string), "out of funds") {
			t.Errorf("%d %s, want 503 out of funds", r.status, r.raw)
		}
		// A failed payout does not count against the address.
		e.node.fund(e.senders[0], 1_000_000_000_000, 0)
		for range 5 {
			e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount)
		}
	})
	t.Run("other rejection", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, envOptions{keys: []string{testKeyHex(t.Name() + "a"), testKeyHex(t.Name() + "b")}})
		e.node.fund(e.senders[0], 1_000_000_000_000, 0)
		e.node.fund(e.senders[1], 1_000_000_000_000, 0)
		e.node.reject[e.senders[0]] = "ServerFailureDatabase"
		r := e.stx(testnetAddress("other"), false)
		if r.status != http.StatusInternalServerError || r.body["error"] != "Faucet request failed, please try again later" {
			t.Errorf("%d %s, want the sanitised 500", r.status, r.raw)
		}
		if len(e.node.txs()) != 0 {
			t.Errorf("a rejection that is not about the key moved on to another key")
		}
	})
}

// An unreachable node is a 503 that does not name the node.
func TestSTXNodeDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.srv.Close()
	r := e.stx(testnetAddress("down"), false)
	if r.status != http.StatusServiceUnavailable || r.body["error"] != "Faucet is temporarily unavailable, please try again later" {
		t.Errorf("%d %s", r.status, r.raw)
	}
}

func TestFaucetForbidden(t *testing.T) {
	t.Parallel()
	to := testnetAddress("forbidden")
	for _, tc := range []struct {
		name, path string
		opts       envOptions
		want       string
	}{
		{"mainnet stx", "/extended/v1/faucets/stx?address=" + to, envOptions{chainID: tx.ChainIDMainnet}, "Faucet is not available on this network"},
		{"mainnet btc", "/extended/v1/faucets/btc?address=bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", envOptions{chainID: tx.ChainIDMainnet}, "Faucet is not available on this network"},
		{"no stx keys", "/extended/v1/faucets/stx?address=" + to, envOptions{keys: []string{}}, "STX faucet is not fully configured"},
		{"no btc settings", "/extended/v1/faucets/btc?address=bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", envOptions{}, "BTC faucet is not fully configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, tc.opts)
			if r := e.post(tc.path, nil, ""); r.status != http.StatusForbidden || r.body["error"] != tc.want {
				t.Errorf("%d %s, want 403 %q", r.status, r.raw, tc.want)
			}
			if len(e.node.txs()) != 0 {
				t.Error("a refused request broadcast a transaction")
			}
		})
	}
}

func TestFaucetBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	good := testnetAddress("good")
	badSum := good[:len(good)-1] + map[bool]string{true: "A", false: "B"}[good[len(good)-1] != 'A']
	mainnet := c32.Address{Version: c32.MainnetP2PKH, Hash160: [20]byte{1, 2, 3}}.String()
	for _, tc := range []struct {
		path, body, ctype, want string
	}{
		{"/extended/v1/faucets/stx?address=" + badSum, "", "", "checksum"},
		{"/extended/v1/faucets/stx?address=" + mainnet, "", "", "not a testnet address"},
		{"/extended/v1/faucets/stx?address=hello", "", "", "invalid STX address"},
		{"/extended/v1/faucets/stx?address=" + good + ".1bad", "", "", "invalid STX address"},
		{"/extended/v1/faucets/stx", "", "", "address required"},
		{"/extended/v1/faucets/stx?address=" + good + "&stacking=yes", "", "", "stacking must be boolean"},
		{"/extended/v1/faucets/btc", `{"address": 12}`, "application/json", "JSON"},
		{"/extended/v1/faucets/btc", `{}`, "application/json", "address required"},
	} {
		r := e.post(tc.path, map[string]string{"Content-Type": tc.ctype}, tc.body)
		if msg, _ := r.body["error"].(string); r.status != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s: %d %s, want 400 mentioning %q", tc.path, tc.body, r.status, r.raw, tc.want)
		}
	}
	if len(e.node.txs()) != 0 {
		t.Error("a bad request broadcast a transaction")
	}
	// The body form of the address works for STX too.
	r := e.post("/extended/v1/faucets/stx", map[string]string{"Content-Type": "application/json"}, `{"address":"`+good+`"}`)
	e.checkTx(r, good, faucet.DefaultSTXAmount)
}

// A nonce count that ran ahead of the chain (say, kept from before a testnet reset) makes the
// node answer TooMuchChaining; the faucet then starts again from the node's nonce.
func TestSTXNonceChainRestarts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 2)
	if err := pgstore.New(e.store).WithNonce(context.Background(), e.senders[0], func(uint64) (uint64, error) { return 90, nil }); err != nil {
		t.Fatal(err)
	}
	r := e.stx(testnetAddress("stale 1"), false)
	if r.status != http.StatusServiceUnavailable || len(e.node.txs()) != 0 {
		t.Fatalf("with a stale nonce: %d %s, want 503 and nothing accepted", r.status, r.raw)
	}
	to := testnetAddress("stale 2")
	if got := e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount); got.Origin.Nonce != 2 {
		t.Errorf("nonce %d after the restart, want the node's 2", got.Origin.Nonce)
	}
}
