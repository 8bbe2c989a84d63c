package resolvers

import (
	"context"
	"log/slog"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// Subscriptions follow what ingestion commits: each API process hears the NOTIFYs on
// db.EventsChannel through its one db.Listener and reads the announced rows back here, so every
// process behind a load balancer serves every subscriber. A process reading from a replica hears
// a notice only once the replica has replayed its commit, so the rows are there to read.

type subscriptionResolver struct{ *Resolver }

func (r *Resolver) Subscription() graph.SubscriptionResolver { return &subscriptionResolver{r} }

func (r *subscriptionResolver) Blocks(ctx context.Context) (<-chan *db.Block, error) {
	return follow(ctx, r.Resolver, db.NoticeBlock, func(ctx context.Context, n db.Notice) ([]*db.Block, error) {
		return r.Store.BlocksByIndexHash(ctx, []string{string(n.IndexBlockHash)})
	})
}

func (r *subscriptionResolver) Microblocks(ctx context.Context) (<-chan *db.Microblock, error) {
	return follow(ctx, r.Resolver, db.NoticeMicroblock, func(ctx context.Context, n db.Notice) ([]*db.Microblock, error) {
		return r.Store.MicroblocksByHash(ctx, hashKeys(n.MicroblockHashes))
	})
}

func (r *subscriptionResolver) MempoolTransactions(ctx context.Context) (<-chan *db.MempoolTx, error) {
	return follow(ctx, r.Resolver, db.NoticeMempool, func(ctx context.Context, n db.Notice) ([]*db.MempoolTx, error) {
		return r.Store.MempoolTxsByID(ctx, hashKeys(n.TxIDs))
	})
}

// AddressTransactions reports the principal's transactions in each new canonical block and each
// new microblock. A microblock transaction is reported again when an anchor block confirms it.
func (r *subscriptionResolver) AddressTransactions(ctx context.Context, principal string) (<-chan *db.Tx, error) {
	if _, err := c32.ParsePrincipal(principal); err != nil {
		return nil, invalid("invalid STX address %q", principal)
	}
	return follow(ctx, r.Resolver, "", func(ctx context.Context, n db.Notice) ([]*db.Tx, error) {
		switch {
		case n.Kind == db.NoticeBlock && n.Canonical:
			return r.Store.TxsOfPrincipalIn(ctx, principal, n.IndexBlockHash, nil)
		case n.Kind == db.NoticeMicroblock:
			return r.Store.TxsOfPrincipalIn(ctx, principal, nil, n.MicroblockHashes)
		}
		return nil, nil
	})
}

// follow subscribes to the notices of one kind ("" for all) and sends the rows read reports for
// each, until ctx ends. Read failures are logged and skipped: a subscription outlives them.
func follow[T any](ctx context.Context, r *Resolver, kind string, read func(context.Context, db.Notice) ([]T, error)) (<-chan T, error) {
	if r.Events == nil {
		return nil, stxgraph.Errorf(stxgraph.EUNAVAILABLE, "subscriptions are not available on this server")
	}
	notices := r.Events.Subscribe(ctx)
	out := make(chan T, 1)
	go func() {
		defer close(out)
		for n := range notices {
			if kind != "" && n.Kind != kind {
				continue
			}
			rows, err := read(ctx, n)
			if err != nil {
				slog.WarnContext(ctx, "subscription read failed", "kind", n.Kind, "err", err)
				continue
			}
			for _, row := range rows {
				select {
				case out <- row:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

func hashKeys(hashes [][]byte) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = string(h)
	}
	return out
}
