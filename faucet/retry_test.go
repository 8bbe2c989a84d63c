package faucet_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/faucet/pgstore"
)

// stxWithKey asks for STX under a request id (the Idempotency-Key header).
func (e *env) stxWithKey(addr, key string) reply {
	e.t.Helper()
	return e.post("/extended/v1/faucets/stx?"+url.Values{"address": {addr}}.Encode(), map[string]string{"Idempotency-Key": key}, "")
}

// A retry under the same request id, e.g. after a lost answer, gets the same payout; the node
// receives one transaction and the limits count one request.
func TestSTXRetrySameRequestID(t *testing.T) {
	t.Parallel()
	limits := faucet.DefaultLimits()
	limits.PerAddress = 2
	e := newEnv(t, envOptions{limits: &limits})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	to := testnetAddress("retried")
	first := e.checkTx(e.stxWithKey(to, "order-1"), to, faucet.DefaultSTXAmount)
	for _, restart := range []bool{false, true} {
		if restart {
			e.start()
		}
		again := e.checkTx(e.stxWithKey(to, "order-1"), to, faucet.DefaultSTXAmount)
		if again.TxIDHex() != first.TxIDHex() {
			t.Errorf("retry (restarted %v) paid %s, want the first payout %s", restart, again.TxIDHex(), first.TxIDHex())
		}
	}
	if got := len(e.node.txs()); got != 1 {
		t.Errorf("node got %d transactions, want 1", got)
	}
	// The retries did not count: one more payout fits the limit of two, then it is full.
	e.checkTx(e.stx(to, false), to, faucet.DefaultSTXAmount)
	if r := e.stx(to, false); r.status != http.StatusTooManyRequests {
		t.Errorf("third payout: %d %s, want 429", r.status, r.raw)
	}
	// The same id for another recipient is a mistake, not a retry.
	if r := e.stxWithKey(testnetAddress("someone else"), "order-1"); r.status != http.StatusBadRequest {
		t.Errorf("request id reused for another address: %d %s, want 400", r.status, r.raw)
	}
}

// A broadcast lost on its way to the node leaves the signed payout recorded: the retry under
// its request id broadcasts that same transaction, paying once.
func TestSTXRetryAfterLostBroadcast(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	e.node.drop = 1
	to := testnetAddress("lost broadcast")
	if r := e.stxWithKey(to, "lost-1"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("lost broadcast: %d %s, want 503", r.status, r.raw)
	}
	if got := len(e.node.txs()); got != 0 {
		t.Fatalf("node kept %d transactions of a lost broadcast", got)
	}
	paid := e.checkTx(e.stxWithKey(to, "lost-1"), to, faucet.DefaultSTXAmount)
	if got := e.node.txs(); len(got) != 1 || got[0].TxIDHex() != paid.TxIDHex() {
		t.Errorf("node has %d transactions, want only the retried payout %s", len(got), paid.TxIDHex())
	}
	if paid.Origin.Nonce != 0 {
		t.Errorf("the retry was signed anew (nonce %d), want the recorded transaction", paid.Origin.Nonce)
	}
}

// A recorded payout that can never be paid (a later payout took its nonce while it was lost) is
// replaced on retry by a new one.
func TestSTXRetryReplacesUnpayable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	e.node.drop = 1
	to := testnetAddress("unpayable")
	if r := e.stxWithKey(to, "lost-2"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("lost broadcast: %d %s, want 503", r.status, r.raw)
	}
	other := e.checkTx(e.stx(testnetAddress("took the nonce"), false), testnetAddress("took the nonce"), faucet.DefaultSTXAmount)
	retried := e.checkTx(e.stxWithKey(to, "lost-2"), to, faucet.DefaultSTXAmount)
	if retried.Origin.Nonce == other.Origin.Nonce {
		t.Errorf("retry reused nonce %d of another payout", other.Origin.Nonce)
	}
	if got := len(e.node.txs()); got != 2 {
		t.Errorf("node got %d transactions, want 2", got)
	}
}

// A request whose process died before signing stops counting when its lease runs out; one
// still within its lease makes a retry under its id wait (409).
func TestReservationLease(t *testing.T) {
	t.Parallel()
	limits := faucet.DefaultLimits()
	limits.PerAddress = 1
	e := newEnv(t, envOptions{limits: &limits})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	ctx := context.Background()
	quota := []pgstore.Quota{{Max: 1, Window: 5 * time.Minute}}

	dead := testnetAddress("died before signing")
	if res, err := pgstore.New(e.store).Reserve(ctx, pgstore.Reservation{Currency: faucet.CurrencySTX, Address: dead, Lease: time.Millisecond}, quota); err != nil || res.ID == 0 {
		t.Fatalf("reservation: %+v %v", res, err)
	}
	time.Sleep(10 * time.Millisecond)
	e.checkTx(e.stx(dead, false), dead, faucet.DefaultSTXAmount)

	busy := testnetAddress("being paid")
	r := pgstore.Reservation{Currency: faucet.CurrencySTX, Address: busy, RequestID: "busy-1", Lease: time.Minute}
	if res, err := pgstore.New(e.store).Reserve(ctx, r, quota); err != nil || res.ID == 0 {
		t.Fatalf("reservation: %+v %v", res, err)
	}
	if got := e.stxWithKey(busy, "busy-1"); got.status != http.StatusConflict {
		t.Errorf("retry while the first is being paid: %d %s, want 409", got.status, got.raw)
	}
}

func TestRequestIDChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	to := testnetAddress("bad id")
	for _, key := range []string{"has space", strings.Repeat("k", 256), "tab\there"} {
		if r := e.stxWithKey(to, key); r.status != http.StatusBadRequest {
			t.Errorf("request id %q: %d %s, want 400", key, r.status, r.raw)
		}
	}
	if got := len(e.node.txs()); got != 0 {
		t.Errorf("a bad request broadcast %d transactions", got)
	}
}
