package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// faucetNode stands in for the stacks-node RPC of the STX faucet: it funds every sender, takes
// each nonce once (the same transaction again is accepted, another one at a held nonce is
// refused as ConflictingNonceInMempool, as by a node's mempool) and records every transfer it
// accepted, so that a payout broadcast twice under two transactions shows.
type faucetNode struct {
	srv *http.Server
	url string

	mu   sync.Mutex
	held map[string]map[uint64]string // sender → nonce → txid
	paid map[string][]string          // recipient → txids of distinct accepted transfers
}

func startFaucetNode() (*faucetNode, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &faucetNode{url: "http://" + ln.Addr().String(), held: map[string]map[uint64]string{}, paid: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/accounts/{principal}", func(w http.ResponseWriter, _ *http.Request) {
		writeNodeJSON(w, http.StatusOK, map[string]any{"balance": fmt.Sprintf("0x%032x", uint64(1)<<62),
			"locked": "0x00000000000000000000000000000000", "unlock_height": 0, "nonce": 0})
	})
	mux.HandleFunc("GET /v2/fees/transfer", func(w http.ResponseWriter, _ *http.Request) { writeNodeJSON(w, http.StatusOK, 1) })
	mux.HandleFunc("POST /v2/transactions", n.broadcast)
	n.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go n.srv.Serve(ln) //nolint:errcheck // ends with Close
	return n, nil
}

func (n *faucetNode) close() { n.srv.Close() }

func (n *faucetNode) broadcast(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	t, err := tx.Decode(raw)
	var p *tx.TokenTransfer
	if err == nil {
		p, _ = t.Payload.(*tx.TokenTransfer)
	}
	if p == nil || t.Verify() != nil {
		writeNodeJSON(w, http.StatusBadRequest, map[string]any{"error": "transaction rejected", "reason": "Deserialization",
			"reason_data": map[string]any{"message": fmt.Sprint("not a signed transfer: ", err)}})
		return
	}
	txid := strings.TrimPrefix(t.TxIDHex(), "0x")
	sender := t.SenderAddress()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.held[sender] == nil {
		n.held[sender] = map[uint64]string{}
	}
	switch held := n.held[sender][t.Origin.Nonce]; held {
	case txid:
	case "":
		n.held[sender][t.Origin.Nonce] = txid
		to := p.Recipient.String()
		n.paid[to] = append(n.paid[to], txid)
	default:
		writeNodeJSON(w, http.StatusBadRequest, map[string]any{"error": "transaction rejected", "reason": "ConflictingNonceInMempool", "txid": txid})
		return
	}
	writeNodeJSON(w, http.StatusOK, txid)
}

// payouts is how many distinct transfers the node accepted to recipient.
func (n *faucetNode) payouts(recipient string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.paid[recipient]
}

func writeNodeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client sees a cut answer
}

// randomRecipient is a new testnet address: each faucet request pays a recipient of its own,
// so the node's transfers per recipient are the payouts per request.
func randomRecipient() string {
	a := c32.Address{Version: c32.TestnetP2PKH}
	rand.Read(a.Hash160[:]) //nolint:errcheck // never fails
	return a.String()
}

// chainNode posts a generated chain to an event observer as a stacks-node does: each message
// until it is accepted, in order, keeping every accepted message for a replay.
type chainNode struct {
	events string
	client *http.Client

	mu       sync.Mutex
	accepted []chaingen.Message
	retries  int
}

func newChainNode(events string) *chainNode {
	return &chainNode{events: strings.TrimSuffix(events, "/"), client: &http.Client{Timeout: 30 * time.Second}}
}

// deliver posts m until the observer accepts it or ctx ends (false).
func (c *chainNode) deliver(ctx context.Context, m chaingen.Message) bool {
	for {
		err := post(ctx, c.client, c.events+m.Path, m.Payload)
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			c.mu.Lock()
			c.accepted = append(c.accepted, m)
			c.mu.Unlock()
			return true
		}
		c.mu.Lock()
		c.retries++
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// messages are the accepted messages so far, in the order they were accepted.
func (c *chainNode) messages() []chaingen.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]chaingen.Message(nil), c.accepted...)
}

// feedBlocks delivers g's messages, a block every blockEvery, until ctx ends.
func (c *chainNode) feedBlocks(ctx context.Context, g *chaingen.Generator, blockEvery time.Duration) error {
	for {
		m, err := g.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !c.deliver(ctx, m) {
			return nil
		}
		if m.Path != chaingen.PathNewBlock {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(blockEvery):
		}
	}
}

// feedMempool delivers rate signed transfers a second, each its own /new_mempool_tx message,
// until ctx ends. Their nonces are far above the chain's, so they stay pending.
func (c *chainNode) feedMempool(ctx context.Context, accounts []chaingen.Account, rate float64) error {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for n := uint64(0); ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		from, to := accounts[n%uint64(len(accounts))], accounts[(n+1)%uint64(len(accounts))]
		body, err := mempoolMessage(from, to, 1<<40+n, false)
		if err != nil {
			return err
		}
		if !c.deliver(ctx, chaingen.Message{Path: chaingen.PathNewMempoolTx, Payload: body}) {
			return nil
		}
	}
}
