package db

import (
	"context"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// Brc20Token returns the token with that ticker (matched case-insensitively), or nil.
func (s *Store) Brc20Token(ctx context.Context, ticker string) (*Brc20Token, error) {
	t := new(Brc20Token)
	err := s.DB.NewSelect().Model(t).Where("ticker = lower(?)", ticker).Scan(ctx)
	return orNil(t, err)
}

// Brc20TokenMatch is a token found for a requested ticker (as requested, in any case).
type Brc20TokenMatch struct {
	Requested string `bun:"requested"`
	Brc20Token
}

// Brc20TokensByTicker looks up tokens for tickers given in any case, in one statement over the
// primary key; tickers with no token have no row.
func (s *Store) Brc20TokensByTicker(ctx context.Context, tickers []string) ([]*Brc20TokenMatch, error) {
	var rows []*Brc20TokenMatch
	err := s.DB.NewRaw(`SELECT k.requested, t.* FROM unnest(?::text[]) AS k(requested)
		JOIN brc20_tokens AS t ON t.ticker = lower(k.requested)`, pgdialect.Array(tickers)).Scan(ctx, &rows)
	return rows, err
}
