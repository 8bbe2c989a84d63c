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
	Send(ctx context.Context, address string) (Sent, error)
}

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

func (l Limits) quotas() []db.FaucetQuota {
	return []db.FaucetQuota{
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
	cfg Config
}

// New returns the faucet service.
func New(cfg Config) *Service { return &Service{cfg: cfg} }

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

// STX sends the STX faucet's amount (or, with stacking, enough to stack) to address.
func (s *Service) STX(ctx context.Context, addr string, stacking bool) (Sent, error) {
	if err := s.testnet(); err != nil {
		return Sent{}, err
	}
	if s.cfg.STX == nil {
		return Sent{}, stxgraph.Errorf(stxgraph.EFORBIDDEN, msgSTXNotConfig)
	}
	recipient, err := ParseSTXAddress(addr)
	if err != nil {
		return Sent{}, err
	}
	return s.payout(ctx, db.FaucetReservation{Currency: CurrencySTX, Address: recipient.String(), Stacking: stacking},
		func(ctx context.Context) (Sent, error) { return s.cfg.STX.Send(ctx, recipient, stacking) })
}

// BTC sends the BTC faucet's amount to a testnet or regtest Bitcoin address.
func (s *Service) BTC(ctx context.Context, addr string) (Sent, error) {
	if err := s.testnet(); err != nil {
		return Sent{}, err
	}
	if s.cfg.BTC == nil {
		return Sent{}, stxgraph.Errorf(stxgraph.EFORBIDDEN, msgBTCNotConfig)
	}
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return Sent{}, stxgraph.Errorf(stxgraph.EINVALID, msgAddressMissing)
	}
	a, err := address.Decode(addr)
	if err != nil || a.Network == address.Mainnet {
		return Sent{}, stxgraph.Errorf(stxgraph.EINVALID, "Invalid BTC testnet or regtest address %q", addr)
	}
	return s.payout(ctx, db.FaucetReservation{Currency: CurrencyBTC, Address: addr},
		func(ctx context.Context) (Sent, error) { return s.cfg.BTC.Send(ctx, addr) })
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

// payout reserves the request under the rate limits, runs send, and records its transaction;
// a failed send releases the reservation so that it does not count.
func (s *Service) payout(ctx context.Context, r db.FaucetReservation, send func(context.Context) (Sent, error)) (Sent, error) {
	r.IP = ClientIP(ctx)
	id, wait, err := s.cfg.Store.ReserveFaucetRequest(ctx, r, s.cfg.Limits.quotas())
	if err != nil {
		slog.ErrorContext(ctx, "faucet rate limit check failed", "currency", r.Currency, "err", err)
		return Sent{}, stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	}
	if wait > 0 {
		return Sent{}, &LimitError{RetryAfter: wait}
	}
	sent, err := send(ctx)
	// The reservation's bookkeeping must happen even when the client went away.
	bg := context.WithoutCancel(ctx)
	if err != nil {
		if cerr := s.cfg.Store.CancelFaucetRequest(bg, id); cerr != nil {
			slog.ErrorContext(ctx, "faucet reservation not released", "err", cerr)
		}
		return Sent{}, s.present(ctx, r, err)
	}
	if err := s.cfg.Store.CompleteFaucetRequest(bg, id, sent.TxID); err != nil {
		slog.ErrorContext(ctx, "faucet payout not recorded", "txid", sent.TxID, "err", err)
	}
	slog.InfoContext(ctx, "faucet payout", "currency", r.Currency, "recipient", r.Address, "stacking", r.Stacking, "txid", sent.TxID)
	return sent, nil
}

// present logs a failed payout and turns it into an error safe to show: the senders' errors
// name node endpoints and rejection reasons, never node addresses or keys, and still only
// reach the log.
func (s *Service) present(ctx context.Context, r db.FaucetReservation, err error) error {
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
