package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// FaucetQuota is one rate limit a faucet request must fit: at most Max requests of the
// currency within Window, counted per recipient address (ByIP false) or per client IP.
// StackingOnly counts only stacking payouts.
type FaucetQuota struct {
	ByIP         bool
	StackingOnly bool
	Max          int
	Window       time.Duration
}

// FaucetReservation is a faucet request about to be paid out.
type FaucetReservation struct {
	Currency string
	Address  string
	IP       string // "" when unknown: IP quotas are then skipped
	Stacking bool
}

// Advisory-lock namespaces (the first key of pg_advisory_xact_lock(int, int)). Address locks are
// always taken before IP locks, so two requests never wait on each other in a cycle.
const (
	lockFaucetAddress int32 = 0x46414431 // "FAD1"
	lockFaucetIP      int32 = 0x46495031 // "FIP1"
)

// ReserveFaucetRequest checks every quota and, when all have room, records the request; the
// check and the insert run under advisory locks on the address and the IP, so concurrent
// requests from any number of processes are counted exactly. It returns the new row's id, or
// (0, wait) when a quota is full, wait being how long until it has room again.
func (s *Store) ReserveFaucetRequest(ctx context.Context, r FaucetReservation, quotas []FaucetQuota) (id int64, wait time.Duration, err error) {
	err = s.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(? || ':' || ?))", lockFaucetAddress, r.Currency, r.Address); err != nil {
			return err
		}
		if r.IP != "" {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(? || ':' || ?))", lockFaucetIP, r.Currency, r.IP); err != nil {
				return err
			}
		}
		for _, q := range quotas {
			w, err := quotaWait(ctx, tx, r, q)
			if err != nil {
				return err
			}
			wait = max(wait, w)
		}
		if wait > 0 {
			return nil
		}
		return tx.NewRaw(`INSERT INTO faucet_requests (currency, address, ip, stacking) VALUES (?, ?, ?, ?) RETURNING id`,
			r.Currency, r.Address, r.IP, r.Stacking).Scan(ctx, &id)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("faucet rate limit: %w", err)
	}
	return id, wait, nil
}

// quotaWait returns 0 when q has room, else the time until its Max-th newest request leaves
// the window (at least one second).
func quotaWait(ctx context.Context, tx bun.Tx, r FaucetReservation, q FaucetQuota) (time.Duration, error) {
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

// CompleteFaucetRequest records the transaction that paid a reserved request.
func (s *Store) CompleteFaucetRequest(ctx context.Context, id int64, txID string) error {
	_, err := s.DB.ExecContext(ctx, "UPDATE faucet_requests SET tx_id = ? WHERE id = ?", txID, id)
	return err
}

// CancelFaucetRequest removes a reservation whose payout failed, so it does not count.
func (s *Store) CancelFaucetRequest(ctx context.Context, id int64) error {
	_, err := s.DB.ExecContext(ctx, "DELETE FROM faucet_requests WHERE id = ?", id)
	return err
}

// WithFaucetNonce runs send while holding the row lock on sender's stored next nonce, and
// stores the nonce send returns as the next one, also when send fails (a nonce the node has seen
// is used up; a stuck chain is restarted lower). Every API process sharing a faucet key goes
// through this lock, so none hands out a nonce another one already used.
func (s *Store) WithFaucetNonce(ctx context.Context, sender string, send func(stored uint64) (next uint64, err error)) error {
	var sendErr error
	err := s.DB.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
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
