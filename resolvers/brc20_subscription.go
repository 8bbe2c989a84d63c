package resolvers

import (
	"context"
	"slices"

	"github.com/stxgraph/stxgraph/brc20"
	"github.com/stxgraph/stxgraph/db"
)

// Brc20Activity reports the operations of each newly applied BRC-20 block on the ticker and/or
// involving the address. A notice names the block's tickers and addresses, so blocks that
// concern neither are skipped without a read; a rolled-back block reports nothing.
func (r *subscriptionResolver) Brc20Activity(ctx context.Context, ticker *string, address *string) (<-chan *db.Brc20Activity, error) {
	var tick, addr string
	if ticker != nil {
		if err := checkTicker(*ticker); err != nil {
			return nil, err
		}
		tick = *ticker
	}
	if address != nil {
		if err := checkText("address", *address); err != nil {
			return nil, err
		}
		addr = *address
	}
	if ticker == nil && address == nil {
		return nil, invalid("give a ticker, an address, or both")
	}
	lower := brc20.Lower(tick)
	return follow(ctx, r.Resolver, db.NoticeBrc20, func(ctx context.Context, n db.Notice) ([]*db.Brc20Activity, error) {
		b := n.Brc20
		if b.Rollback {
			return nil, nil
		}
		if !b.Truncated && ((ticker != nil && !slices.Contains(b.Tickers, lower)) ||
			(address != nil && !slices.Contains(b.Addresses, addr))) {
			return nil, nil
		}
		return r.Store.Brc20BlockActivity(ctx, b.Height, b.Hash, tick, addr)
	})
}
