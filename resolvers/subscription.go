package resolvers

import (
	"cmp"
	"context"
	"log/slog"
	"slices"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// Subscriptions follow what ingestion commits: each API process hears the notices on
// notices.EventsChannel through its one notices.Listener and reads the announced rows back here, so every
// process behind a load balancer serves every subscriber. A process reading from a replica hears
// a notice only once the replica has replayed its commit, so the rows are there to read. Every
// notice is numbered in the notice log, which is what makes a feed resumable (feed.go).

type subscriptionResolver struct{ *Resolver }

func (r *Resolver) Subscription() graph.SubscriptionResolver { return subscriptionResolver{r} }

func (r subscriptionResolver) Blocks(ctx context.Context, after *string) (<-chan *graph.BlockFeedItem, error) {
	return follow(ctx, r.Resolver, after, func(ctx context.Context, n notices.Notice) ([]*graph.BlockFeedItem, error) {
		switch n.Kind {
		case notices.KindBlock:
			blocks, err := r.Store.BlocksByIndexHash(ctx, []string{string(n.IndexBlockHash)})
			return eachItem(blocks, func(b *db.Block) *graph.BlockFeedItem { return &graph.BlockFeedItem{Block: b} }), err
		case notices.KindReorg:
			return []*graph.BlockFeedItem{{Reorg: reorgOf(n)}}, nil
		}
		return nil, nil
	}, func(it *graph.BlockFeedItem, p string) { it.Position = p })
}

func (r subscriptionResolver) Microblocks(ctx context.Context, after *string) (<-chan *graph.MicroblockFeedItem, error) {
	return follow(ctx, r.Resolver, after, func(ctx context.Context, n notices.Notice) ([]*graph.MicroblockFeedItem, error) {
		if n.Kind != notices.KindMicroblock {
			return nil, nil
		}
		mbs, err := r.Store.MicroblocksByHash(ctx, hashKeys(n.MicroblockHashes))
		inNoticeOrder(mbs, n.MicroblockHashes, func(m *db.Microblock) []byte { return m.MicroblockHash })
		return eachItem(mbs, func(m *db.Microblock) *graph.MicroblockFeedItem { return &graph.MicroblockFeedItem{Microblock: m} }), err
	}, func(it *graph.MicroblockFeedItem, p string) { it.Position = p })
}

func (r subscriptionResolver) MempoolTransactions(ctx context.Context, after *string) (<-chan *graph.MempoolFeedItem, error) {
	return follow(ctx, r.Resolver, after, func(ctx context.Context, n notices.Notice) ([]*graph.MempoolFeedItem, error) {
		switch n.Kind {
		case notices.KindMempool:
			txs, err := r.Store.MempoolTxsByID(ctx, hashKeys(n.TxIDs))
			inNoticeOrder(txs, n.TxIDs, func(t *db.MempoolTx) []byte { return t.TxID })
			return eachItem(txs, func(t *db.MempoolTx) *graph.MempoolFeedItem { return &graph.MempoolFeedItem{Transaction: t} }), err
		case notices.KindMempoolDrop:
			return eachItem(n.TxIDs, func(id []byte) *graph.MempoolFeedItem { return &graph.MempoolFeedItem{DroppedTxID: id} }), nil
		}
		return nil, nil
	}, func(it *graph.MempoolFeedItem, p string) { it.Position = p })
}

// AddressTransactions reports the principal's transactions in each new canonical block and each
// new microblock, and each reorganisation. A microblock transaction is reported again when an
// anchor block confirms it.
func (r subscriptionResolver) AddressTransactions(ctx context.Context, principal string, after *string) (<-chan *graph.AddressFeedItem, error) {
	if _, err := c32.ParsePrincipal(principal); err != nil {
		return nil, invalid("invalid STX address %q", principal)
	}
	item := func(t *db.Tx) *graph.AddressFeedItem { return &graph.AddressFeedItem{Transaction: t} }
	return follow(ctx, r.Resolver, after, func(ctx context.Context, n notices.Notice) ([]*graph.AddressFeedItem, error) {
		switch {
		case n.Kind == notices.KindBlock && n.Canonical:
			txs, err := r.Store.TxsOfPrincipalIn(ctx, principal, n.IndexBlockHash, nil)
			return eachItem(txs, item), err
		case n.Kind == notices.KindMicroblock:
			txs, err := r.Store.TxsOfPrincipalIn(ctx, principal, nil, n.MicroblockHashes)
			return eachItem(txs, item), err
		case n.Kind == notices.KindReorg:
			return []*graph.AddressFeedItem{{Reorg: reorgOf(n)}}, nil
		}
		return nil, nil
	}, func(it *graph.AddressFeedItem, p string) { it.Position = p })
}

// reorgOf gives a reorg notice's blocks.
func reorgOf(n notices.Notice) *graph.Reorg {
	refs := func(bs []notices.ReorgBlock) []*graph.BlockRef {
		out := make([]*graph.BlockRef, len(bs))
		for i, b := range bs {
			out[i] = &graph.BlockRef{Height: b.Height, IndexBlockHash: b.IndexBlockHash}
		}
		return out
	}
	return &graph.Reorg{RolledBack: refs(n.RolledBack), Restored: refs(n.Restored)}
}

// eachItem makes a feed item of each row.
func eachItem[R, T any](rows []R, item func(R) T) []T {
	out := make([]T, len(rows))
	for i, row := range rows {
		out[i] = item(row)
	}
	return out
}

// inNoticeOrder sorts rows read by key into the order the notice lists the keys, so that a
// notice's items, and their positions, come out the same whenever it is read.
func inNoticeOrder[R any](rows []R, keys [][]byte, key func(R) []byte) {
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[string(k)] = i
	}
	slices.SortStableFunc(rows, func(a, b R) int { return cmp.Compare(at[string(key(a))], at[string(key(b))]) })
}

// follow runs a feed: items gives the items of one notice, stamp sets an item's position. With
// after, the feed first sends what the notice log holds after that position. Read failures are
// logged and skipped: a subscription outlives them.
func follow[T any](ctx context.Context, r *Resolver, after *string, items func(context.Context, notices.Notice) ([]*T, error), stamp func(*T, string)) (<-chan *T, error) {
	if r.Events == nil {
		return nil, stxgraph.Errorf(stxgraph.EUNAVAILABLE, "subscriptions are not available on this server")
	}
	f := &feed[T]{store: r.Store, items: items, stamp: stamp, out: make(chan *T, 1)}
	if after != nil {
		from, err := parsePosition(*after)
		if err != nil {
			return nil, err
		}
		if err := f.checkResumable(ctx, from); err != nil {
			return nil, err
		}
		f.from, f.resume = from, true
	}
	// Subscribe before reading the log, so that every notice committed from now on is heard,
	// read, or both (the second is dropped by its number).
	heard := r.Events.Subscribe(ctx)
	go func() {
		defer close(f.out)
		f.run(ctx, heard)
	}()
	return f.out, nil
}

// logItem reports a read failure of a feed, which skips that notice.
func logItem(ctx context.Context, n notices.Notice, err error) {
	slog.WarnContext(ctx, "subscription read failed", "kind", n.Kind, "seq", n.Seq, "err", err)
}

func hashKeys(hashes [][]byte) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = string(h)
	}
	return out
}
