// Package pgstore keeps the faucet's rows in PostgreSQL: the requests its rate limits count and
// their payouts, and the next nonce of each STX faucet key. Advisory and row locks make the
// counts and nonces exact across every API process sharing the database.
package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
)

// Store reads and writes the faucet rows of a database.
type Store struct {
	db *db.Store
}

// New returns the faucet rows of store.
func New(store *db.Store) *Store { return &Store{db: store} }

// Quota is one rate limit a faucet request must fit: at most Max requests of the
// currency within Window, counted per recipient address (ByIP false) or per client IP.
// StackingOnly counts only stacking payouts.
type Quota struct {
	ByIP         bool
	StackingOnly bool
	Max          int
	Window       time.Duration
}

// Reservation is a faucet request about to be paid out.
type Reservation struct {
	Currency string
	Address  string
	IP       string // "" when unknown: IP quotas are then skipped
	Stacking bool
	// RequestID is the client's name for this request ("" when it gave none): a retry under the
	// same id is answered by the first request's payout.
	RequestID string
	// Lease is how long the reservation counts against the limits before a transaction is
	// recorded for it: longer than any payout takes, so that only a request whose process died
	// stops counting.
	Lease time.Duration
}

// Reserved is the outcome of a reservation: a new reservation (ID), a full quota (Wait),
// or the earlier request under the same request id (Earlier).
type Reserved struct {
	ID      int64
	Wait    time.Duration
	Earlier *Request
}

// Request is a recorded faucet request.
type Request struct {
	ID       int64
	Address  string
	Stacking bool
	TxID     string // "" until the payout is signed
	TxRaw    string
	Leased   bool // its lease still runs: the process that took it may still be paying
}

// Advisory-lock namespaces (the first key of pg_advisory_xact_lock(int, int)). Request-id locks are
// taken before address locks, and those before IP locks, so two requests never wait on each other in a cycle.
const (
	lockFaucetRequest int32 = 0x46524531 // "FRE1"
	lockFaucetAddress int32 = 0x46414431 // "FAD1"
	lockFaucetIP      int32 = 0x46495031 // "FIP1"
)

// Reserve checks every quota and, when all have room, records the request; the
// check and the insert run under advisory locks on the request id, the address and the IP, so
// concurrent requests from any number of processes are counted exactly. A request id seen before
// is answered with its earlier request instead, unless that one died unsigned (its lease ran
// out), which is then forgotten.
func (s *Store) Reserve(ctx context.Context, r Reservation, quotas []Quota) (res Reserved, err error) {
	err = s.db.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		res = Reserved{}
		if r.RequestID != "" {
			if err := lockFaucet(ctx, tx, lockFaucetRequest, r.Currency, r.RequestID); err != nil {
				return err
			}
			earlier, err := earlierRequest(ctx, tx, r)
			if err != nil || earlier != nil {
				res.Earlier = earlier
				return err
			}
		}
		if err := lockFaucet(ctx, tx, lockFaucetAddress, r.Currency, r.Address); err != nil {
			return err
		}
		if r.IP != "" {
			if err := lockFaucet(ctx, tx, lockFaucetIP, r.Currency, r.IP); err != nil {
				return err
			}
		}
		for _, q := range quotas {
			w, err := quotaWait(ctx, tx, r, q)
			if err != nil {
				return err
			}
			res.Wait = max(res.Wait, w)
		}
		if res.Wait > 0 {
			return nil
		}
		return tx.NewRaw(`INSERT INTO faucet_requests (currency, address, ip, stacking, request_id, lease_until)
			VALUES (?, ?, ?, ?, NULLIF(?, ''), now() + make_interval(secs => ?)) RETURNING id`,
			r.Currency, r.Address, r.IP, r.Stacking, r.RequestID, r.Lease.Seconds()).Scan(ctx, &res.ID)
	})
	if err != nil {
		return Reserved{}, fmt.Errorf("faucet rate limit: %w", err)
	}
	return res, nil
}

func lockFaucet(ctx context.Context, tx bun.Tx, space int32, currency, key string) error {
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(? || ':' || ?))", space, currency, key)
	return err
}

// earlierRequest finds r's request id's earlier request; one that died before it was
// signed is deleted and reported as none.
func earlierRequest(ctx context.Context, tx bun.Tx, r Reservation) (*Request, error) {
	var e Request
	err := tx.NewRaw(`SELECT id, address, stacking, tx_id, tx_raw, coalesce(lease_until > now(), false)
		FROM faucet_requests WHERE currency = ? AND request_id = ? FOR UPDATE`, r.Currency, r.RequestID).
		Scan(ctx, &e.ID, &e.Address, &e.Stacking, &e.TxID, &e.TxRaw, &e.Leased)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	case e.TxID == "" && !e.Leased:
		_, err := tx.ExecContext(ctx, "DELETE FROM faucet_requests WHERE id = ?", e.ID)
		return nil, err
	}
	return &e, nil
}

// quotaWait returns 0 when q has room, else the time until its Max-th newest request leaves
// the window (at least one second).
func quotaWait(ctx context.Context, tx bun.Tx, r Reservation, q Quota) (time.Duration, error) {
	if q.Max <= 0 || q.Window <= 0 || (q.StackingOnly && !r.Stacking) {
		return 0, nil
	}
	col, key := bun.Ident("address"), r.Address
	if q.ByIP {
		if r.IP == "" {
			return 0, nil
		}
		col, key = bun.Ident("ip"), r.IP
	}
	var ms float64
	err := tx.NewRaw(`SELECT extract(epoch FROM occurred_at + make_interval(secs => ?) - now()) * 1000
		FROM faucet_requests
		WHERE ? = ? AND currency = ? AND (stacking OR NOT ?) AND occurred_at > now() - make_interval(secs => ?)
			AND (tx_id <> '' OR lease_until > now())
		ORDER BY occurred_at DESC OFFSET ? LIMIT 1`,
		q.Window.Seconds(), col, key, r.Currency, q.StackingOnly, q.Window.Seconds(), q.Max-1).Scan(ctx, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(time.Duration(ms)*time.Millisecond, time.Second), nil
}

// RecordPayout records the signed transaction of a reserved request, before it is
// broadcast, so that a retry finds it whatever happens to this process next.
func (s *Store) RecordPayout(ctx context.Context, id int64, txID, txRaw string) error {
	_, err := s.db.DB.ExecContext(ctx, "UPDATE faucet_requests SET tx_id = ?, tx_raw = ? WHERE id = ?", txID, txRaw, id)
	return err
}

// ForgetPayout clears a recorded transaction that never reached the chain (its inputs or
// nonce went to another payout), renewing the reservation's lease for a new payout.
func (s *Store) ForgetPayout(ctx context.Context, id int64, lease time.Duration) error {
	_, err := s.db.DB.ExecContext(ctx, `UPDATE faucet_requests SET tx_id = '', tx_raw = '',
		lease_until = now() + make_interval(secs => ?) WHERE id = ?`, lease.Seconds(), id)
	return err
}

// Cancel removes a reservation whose payout failed, so it does not count.
func (s *Store) Cancel(ctx context.Context, id int64) error {
	_, err := s.db.DB.ExecContext(ctx, "DELETE FROM faucet_requests WHERE id = ?", id)
	return err
}

// WithNonce runs send while holding the row lock on sender's stored next nonce, and
// stores the nonce send returns as the next one, also when send fails (a nonce the node has seen
// is used up; a stuck chain is restarted lower). Every API process sharing a faucet key goes
// through this lock, so none hands out a nonce another one already used.
func (s *Store) WithNonce(ctx context.Context, sender string, send func(stored uint64) (next uint64, err error)) error {
	var sendErr error
	err := s.db.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO faucet_stx_nonces (sender) VALUES (?) ON CONFLICT DO NOTHING", sender); err != nil {
			return err
		}
		var stored int64
		if err := tx.NewRaw("SELECT next_nonce FROM faucet_stx_nonces WHERE sender = ? FOR UPDATE", sender).Scan(ctx, &stored); err != nil {
			return err
		}
		var next uint64
		next, sendErr = send(uint64(max(stored, 0)))
		if int64(next) == stored {
			return nil
		}
		_, err := tx.ExecContext(ctx, "UPDATE faucet_stx_nonces SET next_nonce = ? WHERE sender = ?", int64(next), sender)
		return err
	})
	if sendErr != nil {
		return sendErr
	}
	if err != nil {
		return fmt.Errorf("faucet nonce: %w", err)
	}
	return nil
}
