package db

import "context"

// Brc20Token returns the token with that ticker (matched case-insensitively), or nil.
func (s *Store) Brc20Token(ctx context.Context, ticker string) (*Brc20Token, error) {
	t := new(Brc20Token)
	err := s.DB.NewSelect().Model(t).Where("ticker = lower(?)", ticker).Scan(ctx)
	return orNil(t, err)
}
