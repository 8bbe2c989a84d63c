package db

import (
	"context"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/stxgraph/stxgraph/brc20"
)

// Tickers given by users are lower-cased here as ingestion lower-cases deploys (brc20.Lower,
// Unicode-aware like the canonical indexers), never by PostgreSQL's lower(), whose result depends
// on the database's locale.

// Brc20Token returns the token with that ticker (matched case-insensitively), or nil.
func (s *Store) Brc20Token(ctx context.Context, ticker string) (*Brc20Token, error) {
	t := new(Brc20Token)
	err := s.DB.NewSelect().Model(t).Where("ticker = ?", brc20.Lower(ticker)).Scan(ctx)
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
	lowered := make([]string, len(tickers))
	for i, t := range tickers {
		lowered[i] = brc20.Lower(t)
	}
	var rows []*Brc20TokenMatch
	err := s.DB.NewRaw(`SELECT k.requested, t.* FROM unnest(?::text[], ?::text[]) AS k(requested, ticker)
		JOIN brc20_tokens AS t ON t.ticker = k.ticker`, pgdialect.Array(tickers), pgdialect.Array(lowered)).Scan(ctx, &rows)
	return rows, err
}
