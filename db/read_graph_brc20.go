package db

import (
	"context"

	"github.com/uptrace/bun"
)

// Brc20Balance is an address's balance of a BRC-20 token, in integer units scaled by
// 10^decimals: available plus transferable (inscribed, not yet sent) makes the total.
type Brc20Balance struct {
	bun.BaseModel `bun:"table:brc20_balances"`

	Ticker       string `bun:"ticker,pk"`
	Address      string `bun:"address,pk"`
	AvailBalance string `bun:"avail_balance"`
	TransBalance string `bun:"trans_balance"`
	TotalBalance string `bun:"total_balance"`
}

// Brc20HolderKey is the position of a holder in a token's holder list (total balance
// descending, then address): the balance as a decimal integer string and the address.
type Brc20HolderKey struct {
	TotalBalance string
	Address      string
}

// Brc20Holders returns up to limit holders of the token (total balance > 0) after the key, when
// given, in holder order. The balance bound walks brc20_balances_holders_idx from the cursor;
// ties on a balance are ordered by address.
func (s *Store) Brc20Holders(ctx context.Context, ticker string, after *Brc20HolderKey, limit int) ([]*Brc20Balance, error) {
	var rows []*Brc20Balance
	q := s.DB.NewSelect().Model(&rows).Where("ticker = ?", ticker).Where("total_balance > 0")
	if after != nil {
		q = q.Where("total_balance <= ?::numeric", after.TotalBalance).
			Where("(total_balance < ?::numeric OR address > ?)", after.TotalBalance, after.Address)
	}
	err := q.OrderExpr("total_balance DESC, address").Limit(int64(limit)).Scan(ctx)
	return rows, err
}

// Brc20HolderCount counts the token's holders (total balance > 0).
func (s *Store) Brc20HolderCount(ctx context.Context, ticker string) (int64, error) {
	return s.DB.NewSelect().Model((*Brc20Balance)(nil)).Where("ticker = ?", ticker).Where("total_balance > 0").Count(ctx)
}
