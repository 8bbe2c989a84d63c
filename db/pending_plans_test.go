package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A principal's pending figures (the mempool part of its balance, and its nonces) read its own
// pending rows through the indexes whatever the mempool holds: here a faucet sends nearly every
// pending transaction to a handful of recipients, so that on the table's statistics an equality
// on the sender or the recipient would look like most of the mempool, yet the plans the
// sessions run read a few rows, and the figures are still the principal's.
func TestPendingFiguresProbeThePrincipalsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	const faucet, p = "ST1FAUCET0000000000000000000000000000000", "ST2PENDING000000000000000000000000000000"
	if _, err := store.DB.ExecContext(ctx, `INSERT INTO mempool_txs (tx_id, raw_tx, type_id, status, pruned, receipt_time,
			nonce, fee_rate, sender_address, sponsored, sponsor_address, anchor_mode, post_condition_mode,
			token_transfer_recipient_address, token_transfer_amount)
		SELECT int8send(i), '\x00', 0, 0, false, 1000 + i, i, 10, ?::text, false, NULL::text, 3, 1, 'ST3RECIPIENT' || i % 4, 100
		FROM generate_series(1, 3000) i
		UNION ALL VALUES ('\xa1'::bytea, '\x00'::bytea, 0::smallint, 0::smallint, false, 9000::bigint, 4::numeric, 7::numeric,
			?, false, NULL, 3::smallint, 1::smallint, ?, 50::numeric),
			('\xa2', '\x00', 0, 0, false, 9001, 3001, 10, ?, true, ?, 3, 1, ?, 25)`,
		faucet, p, faucet, faucet, p, p); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.ExecContext(ctx, "ANALYZE mempool_txs"); err != nil {
		t.Fatal(err)
	}

	hook := &lastQuery{}
	store.Observe(hook.observe)
	balance := func(at db.BalanceAt) func() error {
		return func() error {
			rows, err := store.StxBalances(ctx, []string{p}, at)
			if err == nil && (len(rows) != 1 || deref(rows[0].MempoolInbound) != "25" || deref(rows[0].MempoolOutbound) != "67") {
				t.Errorf("pending figures %+v, want 25 in (the faucet's transfer to it) and 57 + 10 out (its transfer and the fee it sponsors)", rows)
			}
			return err
		}
	}
	reads := []struct {
		name string
		read func() error
	}{
		{"balance at the tip", balance(db.BalanceAt{})},
		{"unanchored balance", balance(db.BalanceAt{Unanchored: true})},
		{"nonces", func() error {
			rows, err := store.NoncesOf(ctx, []string{p})
			if err == nil && (len(rows) != 1 || rows[0].LastMempoolTxNonce == nil || *rows[0].LastMempoolTxNonce != 4) {
				t.Errorf("nonces %+v, want the pending nonce 4", rows)
			}
			return err
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			hook.ran()
			if err := r.read(); err != nil {
				t.Fatal(err)
			}
			st, n := hook.ran()
			if n != 1 {
				t.Fatalf("the read ran %d statements, want one", n)
			}
			text, js, err := dbtest.ExplainOnStatistics(ctx, store, st)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, "Seq Scan on mempool_txs") {
				t.Errorf("the plan scans the whole mempool:\n%s", text)
			}
			root, _, err := dbtest.ParsePlan(js)
			if err != nil {
				t.Fatal(err)
			}
			if rows := root.RowsOf("mempool_txs"); rows > 20 {
				t.Errorf("the plan reads %.0f mempool rows for a principal with 2 pending:\n%s", rows, text)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
