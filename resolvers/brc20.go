package resolvers

import (
	"context"
	"strings"

	"github.com/stxgraph/stxgraph/db"
)

type brc20TokenResolver struct{ *Resolver }

func (r *queryResolver) Brc20Token(ctx context.Context, ticker string) (*db.Brc20Token, error) {
	return r.Store.Brc20Token(ctx, ticker)
}

func (r *brc20TokenResolver) MaxSupply(_ context.Context, t *db.Brc20Token) (string, error) {
	return scaled(t.MaxSupply, int(t.Decimals)), nil
}

func (r *brc20TokenResolver) MintLimit(_ context.Context, t *db.Brc20Token) (string, error) {
	return scaled(t.MintLimit, int(t.Decimals)), nil
}

func (r *brc20TokenResolver) MintedSupply(_ context.Context, t *db.Brc20Token) (string, error) {
	return scaled(t.MintedSupply, int(t.Decimals)), nil
}

// scaled renders an integer scaled by 10^decimals with exactly decimals fractional digits, as
// the reference does ("21000000.000000000000000000" for 21e24 at 18 decimals).
func scaled(integer string, decimals int) string {
	if decimals == 0 {
		return integer
	}
	if len(integer) <= decimals {
		integer = strings.Repeat("0", decimals-len(integer)+1) + integer
	}
	cut := len(integer) - decimals
	return integer[:cut] + "." + integer[cut:]
}
