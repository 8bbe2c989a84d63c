package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
)

// maxBalancePoints bounds balanceHistory: each point is one index probe.
const maxBalancePoints = 200

func (r accountResolver) BalanceHistory(ctx context.Context, a *db.Account, fromHeight, toHeight *int32, points *int32) ([]*db.BalancePoint, error) {
	n := int32(100)
	if points != nil {
		n = *points
	}
	if n < 2 || n > maxBalancePoints {
		return nil, invalid("points must be between 2 and %d", maxBalancePoints)
	}
	if (fromHeight != nil && *fromHeight < 1) || (toHeight != nil && *toHeight < 1) {
		return nil, invalid("fromHeight and toHeight must be >= 1")
	}
	if fromHeight != nil && toHeight != nil && *fromHeight > *toHeight {
		return nil, invalid("fromHeight must not be above toHeight")
	}
	span, err := r.Store.StxBalanceSpan(ctx, a.Principal)
	if err != nil {
		return nil, err
	}
	if span.Tip == 0 {
		return []*db.BalancePoint{}, nil
	}
	lo, hi := span.First, span.Tip
	if lo == 0 {
		lo = span.Tip
	}
	if fromHeight != nil {
		lo = *fromHeight
	}
	if toHeight != nil {
		hi = min(*toHeight, span.Tip)
	}
	if lo > hi {
		return []*db.BalancePoint{}, nil
	}
	return r.Store.StxBalancePoints(ctx, a.Principal, spread(lo, hi, n))
}

// spread is at most n heights from lo to hi, both included, evenly apart (every height when
// the range holds no more than n).
func spread(lo, hi, n int32) []int32 {
	if hi-lo+1 <= n {
		hs := make([]int32, 0, hi-lo+1)
		for h := lo; h <= hi; h++ {
			hs = append(hs, h)
		}
		return hs
	}
	hs := make([]int32, n)
	for i := range n {
		hs[i] = lo + int32(int64(i)*int64(hi-lo)/int64(n-1))
	}
	return hs
}
