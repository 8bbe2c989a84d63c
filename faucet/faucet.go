// Package faucet pays out testnet STX and BTC to developers who ask for them. The Service checks
// the network and the recipient, applies rate limits kept in PostgreSQL (so they hold across
// restarts and across API processes), and hands the payout to the STX sender (stx.go) or the BTC
// sender; errors leave it in the shared vocabulary with messages safe to show.
package faucet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/bitcoin/address"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/faucet/pgstore"
	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/node"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// Sent is a broadcast payout: its transaction id and serialized transaction, both in hex.
type Sent struct {
	TxID  string
	TxRaw string
}

// BTCSender pays out the BTC faucet's amount to a Bitcoin address.
type BTCSender interface {
	// Send signs the payout, hands it to record, and broadcasts it only when record succeeded.
	Send(ctx context.Context, address string, record func(Sent) error) (Sent, error)
	// Resend broadcasts a recorded payout again: nil when the node holds it or the chain has it,
	// errNotPaid when it can never be paid (its coins went to another payout).
	Resend(ctx context.Context, s Sent) error
}

// Request is one faucet request as a client sends it.
type Request struct {
	Address string
	// Stacking asks for enough STX to stack (STX only).
	Stacking bool
	// ID is the client's name for the request (the Idempotency-Key header), "" for none: a
	// retry under the same ID, e.g. after a lost answer, is answered with the same payout.
	ID string
}

// maxRequestID bounds a request id's length.
const maxRequestID = 255

// payoutLease is how long a reservation counts against the limits before its transaction is
// recorded: far longer than a payout takes (its node calls are bounded by the request's
// deadline), so that only a request whose process died before signing stops counting.
const payoutLease = 2 * time.Minute

// Currencies as the faucet_requests table records them.
const (
	CurrencySTX = "stx"
	CurrencyBTC = "btc"
)

// Limits are the faucets' rate limits; a zero count switches that limit off.
type Limits struct {
	// Per recipient address and currency (the reference: 5 per 5 minutes).
	PerAddress    int
	AddressWindow time.Duration
	// Stacking payouts per address (the reference: 1 per 2 days).
	Stacking       int
	StackingWindow time.Duration
	// Per client IP and currency.
	PerIP    int
	IPWindow time.Duration
}

// DefaultLimits are the reference's address limits plus a client-IP limit.
func DefaultLimits() Limits {
	return Limits{
		PerAddress: 5, AddressWindow: 5 * time.Minute,
		Stacking: 1, StackingWindow: 48 * time.Hour,
		PerIP: 30, IPWindow: 5 * time.Minute,
	}
}

func (l Limits) quotas() []pgstore.Quota {
	return []pgstore.Quota{
		{Max: l.PerAddress, Window: l.AddressWindow},
		{StackingOnly: true, Max: l.Stacking, Window: l.StackingWindow},
		{ByIP: true, Max: l.PerIP, Window: l.IPWindow},
	}
}

// Config is what the Service needs. STX and BTC may be nil: that faucet then answers 403.
type Config struct {
	Store   *db.Store
	ChainID uint32 // the API's Stacks chain id; the faucets refuse to run on mainnet
	STX     *STX
	BTC     BTCSender
	Limits  Limits
}

// Service runs both faucets.
type Service struct {
	cfg  Config
	rows *pgstore.Store
}

// New returns the faucet service.
func New(cfg Config) *Service { return &Service{cfg: cfg, rows: pgstore.New(cfg.Store)} }

// Messages of the errors callers see.
const (
	msgNotAvailable   = "Faucet is not available on this network"
	msgSTXNotConfig   = "STX faucet is not fully configured"
	msgBTCNotConfig   = "BTC faucet is not fully configured"
	msgTooMany        = "Too many requests"
	msgUnavailable    = "Faucet is temporarily unavailable, please try again later"
	msgOutOfFunds     = "The faucet is temporarily out of funds, please try again later"
	msgRequestFailed  = "Faucet request failed, please try again later"
	msgAddressMissing = "address required"
	msgInProgress     = "A payout for this request id is in progress; try again shortly"
)

// LimitError is a refused request: a rate limit is full until RetryAfter has passed.
type LimitError struct {
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return msgTooMany }

// Unwrap gives the error in the shared vocabulary (ERATELIMIT).
func (e *LimitError) Unwrap() error { return stxgraph.Errorf(stxgraph.ERATELIMIT, msgTooMany) }

// RetryAfterSeconds is the Retry-After header value: whole seconds, rounded up.
func (e *LimitError) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(e.RetryAfter.Seconds())))
}

type ctxKey struct{}

// WithClientIP returns ctx carrying the client IP the rate limits count (the HTTP layer
// resolves it, trusting X-Forwarded-For only from configured proxies).
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, ctxKey{}, ip)
}

// ClientIP returns the client IP carried by ctx, "" when none.
func ClientIP(ctx context.Context) string {
	ip, _ := ctx.Value(ctxKey{}).(string)
	return ip
}

func (s *Service) testnet() error {
	if s.cfg.ChainID == tx.ChainIDMainnet {
		return stxgraph.Errorf(stxgraph.EFORBIDDEN, msgNotAvailable)
	}
	return nil
}

// STX sends the STX faucet's amount (or, with stacking, enough to stack) to req.Address.
func (s *Service) STX(ctx context.Context, req Request) (Sent, error) {
	if err := s.testnet(); err != nil {
		return Sent{}, err
	}
	if s.cfg.STX == nil {
		return Sent{}, stxgraph.Errorf(stxgraph.EFORBIDDEN, msgSTXNotConfig)
	}
	recipient, err := ParseSTXAddress(req.Address)
	if err != nil {
		return Sent{}, err
	}
	r := pgstore.Reservation{Currency: CurrencySTX, Address: recipient.String(), Stacking: req.Stacking, RequestID: req.ID}
	return s.payout(ctx, r, sender{
		send: func(ctx context.Context, record func(Sent) error) (Sent, error) {
			return s.cfg.STX.Send(ctx, recipient, req.Stacking, record)
		},
		resend: s.cfg.STX.Resend,
	})
}

// BTC sends the BTC faucet's amount to a testnet or regtest Bitcoin address.
func (s *Service) BTC(ctx context.Context, req Request) (Sent, error) {
	if err := s.testnet(); err != nil {
		return Sent{}, err
	}
	if s.cfg.BTC == nil {
		return Sent{}, stxgraph.Errorf(stxgraph.EFORBIDDEN, msgBTCNotConfig)
	}
	addr := strings.TrimSpace(req.Address)
	if addr == "" {
		return Sent{}, stxgraph.Errorf(stxgraph.EINVALID, msgAddressMissing)
	}
	a, err := address.Decode(addr)
	if err != nil || a.Network == address.Mainnet {
		return Sent{}, stxgraph.Errorf(stxgraph.EINVALID, "Invalid BTC testnet or regtest address %q", addr)
	}
	r := pgstore.Reservation{Currency: CurrencyBTC, Address: addr, RequestID: req.ID}
	return s.payout(ctx, r, sender{
		send: func(ctx context.Context, record func(Sent) error) (Sent, error) {
			return s.cfg.BTC.Send(ctx, addr, record)
		},
		resend: s.cfg.BTC.Resend,
	})
}

// ParseSTXAddress validates a recipient: a c32 address (or contract principal) with a correct
// checksum and a testnet version.
func ParseSTXAddress(addr string) (c32.Principal, error) {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return c32.Principal{}, stxgraph.Errorf(stxgraph.EINVALID, msgAddressMissing)
	}
	p, err := c32.ParsePrincipal(addr)
	if err != nil {
		return c32.Principal{}, stxgraph.Errorf(stxgraph.EINVALID, "invalid STX address %q: checksum or format is wrong", addr)
	}
	if !p.Address.IsTestnet() {
		return c32.Principal{}, stxgraph.Errorf(stxgraph.EINVALID, "invalid STX address %q: not a testnet address (testnet addresses begin with ST or SN)", addr)
	}
	return p, nil
}

// sender is one faucet's way to pay: send signs, records and broadcasts a new payout; resend
// broadcasts a recorded one again.
type sender struct {
	send   func(ctx context.Context, record func(Sent) error) (Sent, error)
	resend func(ctx context.Context, s Sent) error
}

// payout reserves the request under the rate limits and pays it, or answers a retried request
// id with its earlier payout. The signed transaction is recorded before it is broadcast, so a
// retry gets the same transaction whatever happened to the process that signed it.
func (s *Service) payout(ctx context.Context, r pgstore.Reservation, pay sender) (Sent, error) {
	if err := checkRequestID(r.RequestID); err != nil {
		return Sent{}, err
	}
	r.IP, r.Lease = ClientIP(ctx), payoutLease
	res, err := s.rows.Reserve(ctx, r, s.cfg.Limits.quotas())
	if err != nil {
		slog.ErrorContext(ctx, "faucet rate limit check failed", "currency", r.Currency, "err", err)
		return Sent{}, stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	}
	switch {
	case res.Wait > 0:
		return Sent{}, &LimitError{RetryAfter: res.Wait}
	case res.Earlier != nil:
		return s.retry(ctx, r, res.Earlier, pay)
	}
	return s.pay(ctx, r, res.ID, pay)
}

// pay pays reservation id. A payout that failed before it was recorded, or that the node
// refused, releases the reservation; one whose broadcast may have reached the node stays
// recorded (and counted), for a retry under its request id to settle.
func (s *Service) pay(ctx context.Context, r pgstore.Reservation, id int64, pay sender) (Sent, error) {
	// The reservation's bookkeeping must happen even when the client went away.
	bg := context.WithoutCancel(ctx)
	recorded := false
	sent, err := pay.send(ctx, func(sent Sent) error {
		err := s.rows.RecordPayout(bg, id, sent.TxID, sent.TxRaw)
		recorded = err == nil
		return err
	})
	if err != nil {
		var unknown *unknownOutcome
		if !recorded || !errors.As(err, &unknown) {
			if cerr := s.rows.Cancel(bg, id); cerr != nil {
				slog.ErrorContext(ctx, "faucet reservation not released", "err", cerr)
			}
		}
		return Sent{}, s.present(ctx, r, err)
	}
	slog.InfoContext(ctx, "faucet payout", "currency", r.Currency, "recipient", r.Address, "stacking", r.Stacking, "txid", sent.TxID)
	return sent, nil
}

// retry answers a request id seen before: with its payout, broadcast again in case the first
// broadcast never happened; or, when that payout can never be paid, with a new one.
func (s *Service) retry(ctx context.Context, r pgstore.Reservation, e *pgstore.Request, pay sender) (Sent, error) {
	if e.Address != r.Address || e.Stacking != r.Stacking {
		return Sent{}, stxgraph.Errorf(stxgraph.EINVALID, "request id %q was used for another request", r.RequestID)
	}
	if e.TxID == "" {
		return Sent{}, stxgraph.Errorf(stxgraph.ECONFLICT, msgInProgress)
	}
	sent := Sent{TxID: e.TxID, TxRaw: e.TxRaw}
	err := pay.resend(ctx, sent)
	switch {
	case err == nil:
		slog.InfoContext(ctx, "faucet payout repeated", "currency", r.Currency, "recipient", r.Address, "txid", sent.TxID)
		return sent, nil
	case errors.Is(err, errNotPaid):
		slog.WarnContext(ctx, "faucet payout never reached the chain; paying again", "currency", r.Currency, "txid", sent.TxID)
		if err := s.rows.ForgetPayout(context.WithoutCancel(ctx), e.ID, payoutLease); err != nil {
			slog.ErrorContext(ctx, "faucet payout not cleared", "err", err)
			return Sent{}, stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
		}
		return s.pay(ctx, r, e.ID, pay)
	default:
		return Sent{}, s.present(ctx, r, err)
	}
}

// checkRequestID accepts "" (none) or 1 to 255 visible ASCII characters.
func checkRequestID(id string) error {
	if len(id) > maxRequestID {
		return stxgraph.Errorf(stxgraph.EINVALID, "request id must be at most %d characters", maxRequestID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return stxgraph.Errorf(stxgraph.EINVALID, "request id must be visible ASCII characters")
		}
	}
	return nil
}

// unknownOutcome wraps a broadcast error after which the node may hold the transaction (the
// connection failed or timed out): the payout stays recorded.
type unknownOutcome struct{ err error }

func (e *unknownOutcome) Error() string { return e.err.Error() }
func (e *unknownOutcome) Unwrap() error { return e.err }

// errNotPaid: a recorded payout that the chain does not have and cannot take any more.
var errNotPaid = errors.New("the recorded payout was never paid and cannot be")

// present logs a failed payout and turns it into an error safe to show: the senders' errors
// name node endpoints and rejection reasons, never node addresses or keys, and still only
// reach the log.
func (s *Service) present(ctx context.Context, r pgstore.Reservation, err error) error {
	var app *stxgraph.Error
	var nodeErr *node.Error
	var rej *node.Rejection
	switch {
	case errors.As(err, &app) && app.Code != stxgraph.EINTERNAL:
		slog.WarnContext(ctx, "faucet payout refused", "currency", r.Currency, "err", err)
		return app
	case errors.Is(err, errOutOfFunds) || (errors.As(err, &rej) && rej.Reason == "NotEnoughFunds"):
		slog.ErrorContext(ctx, "faucet out of funds", "currency", r.Currency, "err", err)
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgOutOfFunds)
	case errors.As(err, &rej) && rotates[rej.Reason]:
		slog.ErrorContext(ctx, "every faucet key is busy", "currency", r.Currency, "err", err)
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	case errors.As(err, &nodeErr) && nodeErr.Unreachable():
		slog.ErrorContext(ctx, "faucet node unavailable", "currency", r.Currency, "err", err)
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	case errors.Is(err, context.DeadlineExceeded):
		slog.ErrorContext(ctx, "faucet payout timed out", "currency", r.Currency, "err", err)
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	default:
		slog.ErrorContext(ctx, "faucet payout failed", "currency", r.Currency, "err", err)
		return stxgraph.Errorf(stxgraph.EINTERNAL, msgRequestFailed)
	}
}

// errOutOfFunds: no key holds enough STX for the payout and its fee.
var errOutOfFunds = errors.New("faucet keys hold too little STX")

// configError is a setting that stops start-up; it never quotes a key.
func configError(format string, args ...any) error {
	return fmt.Errorf("faucet: "+format, args...)
}
