package faucet_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// stacksNode stands in for a stacks-node's RPC on loopback. It decodes every broadcast
// transaction with stacks/tx and checks it as the node's mempool admission does (signature,
// low S, chain id and version, address versions, fee per byte, nonce, chaining limit,
// conflicting nonces, funds), answering with the node's rejection bodies. On top it fails the
// test when a transfer breaks a faucet rule (memo, fee from the rate, amount).
type stacksNode struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	feeRate  uint64
	stacking uint64 // next_cycle.min_threshold_ustx
	accounts map[string]*nodeAccount
	// reject answers every broadcast from a sender with this reason (a stuck or empty key).
	reject   map[string]string
	accepted []*tx.Transaction
	// wantAmount, when not 0, is the amount every transfer must carry.
	wantAmount uint64
	// mineEvery, when not 0, mines a block after that many accepted transactions, as a fast
	// regtest chain does, so that long nonce chains stay within the chaining limit.
	mineEvery int
	// drop, when not 0, is how many more broadcasts are read and then cut off without an answer
	// and without being kept: a broadcast that was lost on its way to the node.
	drop int
}

type nodeAccount struct {
	balance *big.Int
	nonce   uint64                     // confirmed next nonce
	pending map[uint64]*tx.Transaction // mempool by nonce
}

const maxChaining = 25 // stacks-core MAXIMUM_MEMPOOL_TX_CHAINING

func newStacksNode(t *testing.T) *stacksNode {
	n := &stacksNode{t: t, feeRate: 1, stacking: 70_000_000_000, accounts: map[string]*nodeAccount{}, reject: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/accounts/{principal}", n.account)
	mux.HandleFunc("GET /v2/fees/transfer", func(w http.ResponseWriter, _ *http.Request) {
		n.mu.Lock()
		defer n.mu.Unlock()
		writeNodeJSON(w, 200, n.feeRate)
	})
	mux.HandleFunc("GET /v2/pox", func(w http.ResponseWriter, _ *http.Request) {
		n.mu.Lock()
		defer n.mu.Unlock()
		// The real answer has many more fields; the client must ignore what it does not use.
		writeNodeJSON(w, 200, map[string]any{
			"contract_id": "ST000000000000000000002AMW42H.pox-4", "min_amount_ustx": n.stacking,
			"current_cycle":      map[string]any{"id": 2, "min_threshold_ustx": n.stacking / 2, "is_pox_active": true},
			"next_cycle":         map[string]any{"id": 3, "min_threshold_ustx": n.stacking, "blocks_until_reward_phase": 507},
			"rejection_fraction": nil,
		})
	})
	mux.HandleFunc("POST /v2/transactions", n.broadcast)
	n.srv = httptest.NewServer(mux)
	t.Cleanup(n.srv.Close)
	return n
}

// fund gives an address a balance and a confirmed nonce.
func (n *stacksNode) fund(addr string, ustx uint64, nonce uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a := n.acct(addr)
	a.balance = new(big.Int).SetUint64(ustx)
	a.nonce = nonce
}

func (n *stacksNode) acct(addr string) *nodeAccount {
	a := n.accounts[addr]
	if a == nil {
		a = &nodeAccount{balance: new(big.Int), pending: map[uint64]*tx.Transaction{}}
		n.accounts[addr] = a
	}
	return a
}

func (n *stacksNode) account(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("proof") != "0" {
		n.t.Errorf("GET %s without proof=0: the faucet would download proofs it never reads", r.URL)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	a := n.acct(r.PathValue("principal"))
	writeNodeJSON(w, 200, map[string]any{
		"balance": fmt.Sprintf("0x%032x", a.balance), "locked": "0x00000000000000000000000000000000",
		"unlock_height": 0, "nonce": a.nonce,
	})
}

func (n *stacksNode) broadcast(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Content-Type") != "application/octet-stream" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(400)
		io.WriteString(w, "Missing Content-Type for transaction")
		return
	}
	raw, _ := io.ReadAll(r.Body)
	if n.dropped() {
		panic(http.ErrAbortHandler) // the connection is closed with no answer
	}
	t, err := tx.Decode(raw)
	if err != nil {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(400)
		fmt.Fprintf(w, "Failed to deserialize posted transaction: %v", err)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	txid := strings.TrimPrefix(t.TxIDHex(), "0x")
	reject := func(reason string, data any) {
		body := map[string]any{"error": "transaction rejected", "reason": reason, "txid": txid}
		if data != nil {
			body["reason_data"] = data
		}
		writeNodeJSON(w, 400, body)
	}
	sender := t.SenderAddress()
	p, ok := t.Payload.(*tx.TokenTransfer)
	switch {
	case t.Verify() != nil || !t.HasLowS():
		reject("SignatureValidation", map[string]any{"message": "bad signature"})
		return
	case t.ChainID != tx.ChainIDTestnet || t.IsMainnet():
		reject("BadTransactionVersion", nil)
		return
	case !ok:
		n.t.Errorf("faucet broadcast a %T, want a token transfer", t.Payload)
		reject("Deserialization", map[string]any{"message": "not a transfer"})
		return
	case !t.Sender().IsTestnet() || !p.Recipient.Address.IsTestnet():
		reject("BadAddressVersionByte", nil)
		return
	case t.Origin.Fee < uint64(len(raw)):
		reject("FeeTooLow", map[string]any{"expected": len(raw), "actual": t.Origin.Fee})
		return
	case p.Amount == 0:
		reject("TransferAmountMustBePositive", nil)
		return
	}
	// Faucet rules the node itself does not enforce.
	if memo := strings.TrimRight(string(p.Memo[:]), "\x00"); memo != faucet.Memo {
		n.t.Errorf("tx %s memo %q, want %q", txid, memo, faucet.Memo)
	}
	if want := max(n.feeRate*uint64(len(raw)), uint64(len(raw))); t.Origin.Fee != want {
		n.t.Errorf("tx %s fee %d, want rate %d x %d bytes = %d", txid, t.Origin.Fee, n.feeRate, len(raw), want)
	}
	if n.wantAmount != 0 && p.Amount != n.wantAmount {
		n.t.Errorf("tx %s amount %d, want %d", txid, p.Amount, n.wantAmount)
	}
	if reason := n.reject[sender]; reason != "" {
		reject(reason, nil)
		return
	}
	a := n.acct(sender)
	nonce := t.Origin.Nonce
	if old := a.pending[nonce]; old != nil {
		if old.TxIDHex() == t.TxIDHex() {
			writeNodeJSON(w, 200, txid)
			return
		}
		reject("ConflictingNonceInMempool", nil)
		return
	}
	switch {
	case nonce < a.nonce:
		reject("BadNonce", map[string]any{"expected": a.nonce, "actual": nonce, "principal": sender, "is_origin": true})
		return
	case nonce > a.nonce+maxChaining:
		reject("TooMuchChaining", map[string]any{"message": "too many chained", "expected": a.nonce + maxChaining, "actual": nonce, "principal": sender, "is_origin": true})
		return
	}
	spend := new(big.Int).SetUint64(p.Amount + t.Origin.Fee)
	for _, q := range a.pending {
		spend.Add(spend, new(big.Int).SetUint64(q.Payload.(*tx.TokenTransfer).Amount+q.Origin.Fee))
	}
	if spend.Cmp(a.balance) > 0 {
		reject("NotEnoughFunds", map[string]any{"expected": fmt.Sprintf("0x%x", spend), "actual": fmt.Sprintf("0x%x", a.balance)})
		return
	}
	a.pending[nonce] = t
	n.accepted = append(n.accepted, t)
	if n.mineEvery > 0 && len(n.accepted)%n.mineEvery == 0 {
		n.mine()
	}
	writeNodeJSON(w, 200, txid)
}

// dropped tells whether to lose this broadcast, counting it.
func (n *stacksNode) dropped() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.drop == 0 {
		return false
	}
	n.drop--
	return true
}

// mine confirms every account's pending transactions whose nonces follow on without a gap.
func (n *stacksNode) mine() {
	for _, a := range n.accounts {
		for q := a.pending[a.nonce]; q != nil; q = a.pending[a.nonce] {
			delete(a.pending, a.nonce)
			a.balance.Sub(a.balance, new(big.Int).SetUint64(q.Payload.(*tx.TokenTransfer).Amount+q.Origin.Fee))
			a.nonce++
		}
	}
}

// txs returns the accepted transactions, in arrival order.
func (n *stacksNode) txs() []*tx.Transaction {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*tx.Transaction(nil), n.accepted...)
}

func (n *stacksNode) byID(id string) *tx.Transaction {
	for _, t := range n.txs() {
		if t.TxIDHex() == id {
			return t
		}
	}
	return nil
}

func writeNodeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // test server
}
