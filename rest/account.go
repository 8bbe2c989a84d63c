package rest

import (
	"context"
	"net/http"

	genql "github.com/Khan/genqlient/graphql"
)

// stxBalanceRead is a read of GET /extended/v1/address/{principal}/stx.
type stxBalanceRead accountParams

func stxBalanceParams(r *http.Request) (read, error) {
	p, err := balanceParams(r)
	return stxBalanceRead(p), err
}

func (p stxBalanceRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return balanceTag(ctx, c, p.principal)
}

// pending: the balance counts the principal's own pending transactions.
func (p stxBalanceRead) pending() []string { return []string{p.principal} }

func (p stxBalanceRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := AccountStxBalance(ctx, c, p.principal, p.unanchored, p.until.height, p.until.hash)
	if err != nil {
		return nil, "", err
	}
	a, b := d.Account, d.Account.StxBalance
	tag := principalTag{a.LatestTxId, a.LatestMempoolTxId, &lockTag{b.Locked, b.BurnchainUnlockHeight}}.etag(true)
	body, err := marshal(stxBalanceBody{
		Balance:                   b.Balance,
		TotalMinerRewardsReceived: b.TotalMinerRewardsReceived,
		LockTxID:                  deref(b.LockTxId),
		Locked:                    b.Locked,
		LockHeight:                b.LockHeight,
		BurnchainLockHeight:       b.BurnchainLockHeight,
		BurnchainUnlockHeight:     b.BurnchainUnlockHeight,
		EstimatedBalance:          b.EstimatedBalance,
		PendingBalanceInbound:     b.PendingBalanceInbound,
		PendingBalanceOutbound:    b.PendingBalanceOutbound,
		TotalSent:                 b.TotalSent,
		TotalReceived:             b.TotalReceived,
		TotalFeesSent:             b.TotalFeesSent,
	})
	return body, tag, err
}

// stxBalanceBody is the reference's STX balance: the members its schema requires, then the
// mempool figures, which a read at an earlier block has none of.
type stxBalanceBody struct {
	Balance                   string  `json:"balance"`
	TotalMinerRewardsReceived string  `json:"total_miner_rewards_received"`
	LockTxID                  string  `json:"lock_tx_id"`
	Locked                    string  `json:"locked"`
	LockHeight                int     `json:"lock_height"`
	BurnchainLockHeight       int     `json:"burnchain_lock_height"`
	BurnchainUnlockHeight     int     `json:"burnchain_unlock_height"`
	EstimatedBalance          *string `json:"estimated_balance,omitempty"`
	PendingBalanceInbound     *string `json:"pending_balance_inbound,omitempty"`
	PendingBalanceOutbound    *string `json:"pending_balance_outbound,omitempty"`
	TotalSent                 string  `json:"total_sent"`
	TotalReceived             string  `json:"total_received"`
	TotalFeesSent             string  `json:"total_fees_sent"`
}

// balanceTag is the ETag of an address route that shows the principal's balance, read alone.
func balanceTag(ctx context.Context, c genql.Client, principal string) (string, error) {
	t, err := readPrincipalTag(ctx, c, principal)
	return t.etag(true), err
}

// activityTag is the ETag of an address route that lists the principal's mined transactions,
// read alone: its newest transaction.
func activityTag(ctx context.Context, c genql.Client, principal string) (string, error) {
	t, err := readPrincipalTag(ctx, c, principal)
	return principalTag{LatestTxID: t.LatestTxID}.etag(false), err
}

// readPrincipalTag reads what the address routes' ETags name.
func readPrincipalTag(ctx context.Context, c genql.Client, principal string) (principalTag, error) {
	d, err := AccountTag(ctx, c, principal)
	if err != nil {
		return principalTag{}, err
	}
	a := d.Account
	return principalTag{a.LatestTxId, a.LatestMempoolTxId, &lockTag{a.Balance.Locked, a.Balance.Burnchain_unlock_height}}, nil
}
