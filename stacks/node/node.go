// Package node is a client of the stacks-node RPC endpoints the STX faucet needs: account nonce
// and balance, the stacking minimum, the transfer fee rate and transaction broadcast. Errors it
// returns never carry the node's address, so callers may log them.
package node

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// DefaultTimeout bounds one RPC call when the Client's HTTP client has no timeout of its own.
const DefaultTimeout = 15 * time.Second

// maxBody bounds how much of a node answer is read; every answer used here is small.
const maxBody = 1 << 20

// Client talks to one stacks-node RPC endpoint, e.g. http://127.0.0.1:20443.
type Client struct {
	base string
	http *http.Client
}

// New returns a client for the node at baseURL. A nil httpClient uses one with DefaultTimeout.
func New(baseURL string, httpClient *http.Client) *Client {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), http: httpClient}
}

// Account is an account's state at the node's confirmed tip.
type Account struct {
	Balance *big.Int // spendable µSTX
	Locked  *big.Int // µSTX locked by stacking
	Nonce   uint64   // the next nonce the chain expects (mempool not counted)
}

// Account reads /v2/accounts/{principal} without proofs.
func (c *Client) Account(ctx context.Context, principal string) (Account, error) {
	var raw struct {
		Balance string  `json:"balance"`
		Locked  string  `json:"locked"`
		Nonce   *uint64 `json:"nonce"`
	}
	if err := c.getJSON(ctx, "/v2/accounts/"+principal+"?proof=0", &raw); err != nil {
		return Account{}, err
	}
	if raw.Nonce == nil {
		return Account{}, &Error{Op: "/v2/accounts", Msg: "answer has no nonce"}
	}
	bal, err := parseU128(raw.Balance)
	if err != nil {
		return Account{}, &Error{Op: "/v2/accounts", Msg: "balance: " + err.Error()}
	}
	locked, err := parseU128(raw.Locked)
	if err != nil && raw.Locked != "" {
		return Account{}, &Error{Op: "/v2/accounts", Msg: "locked: " + err.Error()}
	}
	return Account{Balance: bal, Locked: locked, Nonce: *raw.Nonce}, nil
}

// parseU128 reads the node's "0x…" big-endian u128 hex.
func parseU128(s string) (*big.Int, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" || len(h) > 32 {
		return nil, fmt.Errorf("want 0x-prefixed u128 hex, got %q", s)
	}
	b, err := hex.DecodeString(strings.Repeat("0", len(h)%2) + h)
	if err != nil {
		return nil, fmt.Errorf("want 0x-prefixed u128 hex: %v", err)
	}
	return new(big.Int).SetBytes(b), nil
}

// StackingMinimum returns the µSTX needed to stack in the next reward cycle:
// next_cycle.min_threshold_ustx from /v2/pox, else the deprecated min_amount_ustx.
func (c *Client) StackingMinimum(ctx context.Context) (uint64, error) {
	var raw struct {
		MinAmount *uint64 `json:"min_amount_ustx"`
		NextCycle *struct {
			MinThreshold *uint64 `json:"min_threshold_ustx"`
		} `json:"next_cycle"`
	}
	if err := c.getJSON(ctx, "/v2/pox", &raw); err != nil {
		return 0, err
	}
	switch {
	case raw.NextCycle != nil && raw.NextCycle.MinThreshold != nil && *raw.NextCycle.MinThreshold > 0:
		return *raw.NextCycle.MinThreshold, nil
	case raw.MinAmount != nil && *raw.MinAmount > 0:
		return *raw.MinAmount, nil
	}
	return 0, &Error{Op: "/v2/pox", Msg: "answer has no stacking minimum"}
}

// TransferFeeRate returns the node's fee rate for transfers in µSTX per byte (/v2/fees/transfer).
func (c *Client) TransferFeeRate(ctx context.Context) (uint64, error) {
	var rate uint64
	if err := c.getJSON(ctx, "/v2/fees/transfer", &rate); err != nil {
		return 0, err
	}
	return rate, nil
}

// Broadcast posts a serialized transaction to /v2/transactions and returns the txid the node
// reports (64 hex characters, no 0x). A mempool rejection comes back as *Rejection.
func (c *Client) Broadcast(ctx context.Context, raw []byte) (string, error) {
	const op = "/v2/transactions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+op, bytes.NewReader(raw))
	if err != nil {
		return "", &Error{Op: op, Msg: "invalid node URL"}
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	status, body, err := c.do(req, op)
	if err != nil {
		return "", err
	}
	switch {
	case status == http.StatusOK:
		var txid string
		if err := json.Unmarshal(body, &txid); err != nil || len(txid) != 64 {
			return "", &Error{Op: op, Msg: "answer is not a txid"}
		}
		if _, err := hex.DecodeString(txid); err != nil {
			return "", &Error{Op: op, Msg: "answer is not a txid"}
		}
		return strings.ToLower(txid), nil
	case status == http.StatusBadRequest:
		return "", parseRejection(body)
	default:
		return "", &Error{Op: op, Status: status, Msg: fmt.Sprintf("node answered HTTP %d", status)}
	}
}

// Rejection is the node's refusal of a broadcast transaction.
type Rejection struct {
	Reason     string          // e.g. BadNonce, ConflictingNonceInMempool, NotEnoughFunds
	ReasonData json.RawMessage // reason-specific details, when the node gives any
	Message    string          // the node's "error" text, or a plain-text body
	TxID       string
}

func (r *Rejection) Error() string {
	if r.Reason == "" {
		return "transaction rejected: " + r.Message
	}
	return "transaction rejected: " + r.Reason
}

// Expected returns reason_data.expected as a number (BadNonce, TooMuchChaining, FeeTooLow).
func (r *Rejection) Expected() (uint64, bool) {
	var d struct {
		Expected *uint64 `json:"expected"`
	}
	if json.Unmarshal(r.ReasonData, &d) != nil || d.Expected == nil {
		return 0, false
	}
	return *d.Expected, true
}

// parseRejection reads a 400 body: the mempool's JSON rejection, or a plain-text decode error.
func parseRejection(body []byte) *Rejection {
	var j struct {
		Error      string          `json:"error"`
		Reason     string          `json:"reason"`
		ReasonData json.RawMessage `json:"reason_data"`
		TxID       string          `json:"txid"`
	}
	if json.Unmarshal(body, &j) == nil && (j.Reason != "" || j.Error != "") {
		return &Rejection{Reason: j.Reason, ReasonData: j.ReasonData, Message: j.Error, TxID: j.TxID}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return &Rejection{Reason: "Deserialization", Message: msg}
}

// Error is a failed RPC call that is not a rejection: the node is unreachable, slow, or gave an
// answer that cannot be read. It names the endpoint path, never the node's address.
type Error struct {
	Op      string
	Status  int // HTTP status when the node answered
	Msg     string
	Timeout bool
}

func (e *Error) Error() string { return "stacks-node " + e.Op + ": " + e.Msg }

// Unreachable reports whether the node could not be reached or did not answer in time (as
// opposed to answering something wrong).
func (e *Error) Unreachable() bool { return e.Status == 0 || e.Status >= 500 }

func (c *Client) getJSON(ctx context.Context, path string, out any) error {
	op, _, _ := strings.Cut(path, "?")
	if strings.HasPrefix(op, "/v2/accounts/") {
		op = "/v2/accounts"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return &Error{Op: op, Msg: "invalid node URL"}
	}
	req.Header.Set("Accept", "application/json")
	status, body, err := c.do(req, op)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return &Error{Op: op, Status: status, Msg: fmt.Sprintf("node answered HTTP %d", status)}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &Error{Op: op, Status: status, Msg: "unreadable answer"}
	}
	return nil
}

// do runs req and reads the body. Transport errors are reduced to their kind: *url.Error and
// the net errors inside it spell out the node's address.
func (c *Client) do(req *http.Request, op string) (int, []byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		var ne interface{ Timeout() bool }
		switch {
		case errors.Is(err, context.Canceled):
			return 0, nil, &Error{Op: op, Msg: "request canceled"}
		case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
			return 0, nil, &Error{Op: op, Msg: "node did not answer in time", Timeout: true}
		default:
			return 0, nil, &Error{Op: op, Msg: "node unreachable"}
		}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, &Error{Op: op, Msg: "reading the answer failed"}
	}
	return resp.StatusCode, body, nil
}
