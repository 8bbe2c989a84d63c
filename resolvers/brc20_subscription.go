package resolvers

import (
	"context"
	"slices"

	"github.com/stxgraph/stxgraph/brc20"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/graph"
)

// Brc20Activity reports the operations of each newly applied BRC-20 block on the ticker and/or
// involving the address, and each rolled-back block that concerns them. A notice names the
// block's tickers and addresses, so blocks that concern neither are skipped without a read.
func (r subscriptionResolver) Brc20Activity(ctx context.Context, ticker *string, address *string, after *string) (<-chan *graph.Brc20FeedItem, error) {
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
	return follow(ctx, r.Resolver, after, func(ctx context.Context, n notices.Notice) ([]*graph.Brc20FeedItem, error) {
		b := n.Brc20
		if n.Kind != notices.KindBrc20 || (!b.Truncated && ((ticker != nil && !slices.Contains(b.Tickers, lower)) ||
			(address != nil && !slices.Contains(b.Addresses, addr)))) {
			return nil, nil
		}
		if b.Rollback {
			return []*graph.Brc20FeedItem{{RolledBack: &graph.Brc20RolledBackBlock{Height: b.Height, Hash: b.Hash}}}, nil
		}
		ops, err := r.Store.Brc20BlockActivity(ctx, b.Height, b.Hash, tick, addr)
		return eachItem(ops, func(a *db.Brc20Activity) *graph.Brc20FeedItem { return &graph.Brc20FeedItem{Activity: a} }), err
	}, func(it *graph.Brc20FeedItem, p string) { it.Position = p })
}
