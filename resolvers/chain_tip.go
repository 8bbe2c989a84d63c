package resolvers

import (
	"context"
	"sync"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
)

// chainTips keeps the chain tip last read with the versions of the chain and the mempool the
// listener had heard of before reading it. Nearly every REST read names the tip (its ETag and
// totals), and the row only changes with a block, a microblock, a burn block or a mempool
// change, each of which moves those versions: until one does, the kept row is the database's.
// Without a live listener no change could be heard, and every read goes to the database.
type chainTips struct {
	mu  sync.Mutex
	at  notices.StateVersion
	tip *db.ChainTip // nil until the first read
}

// chainTip returns the chain tip, from the kept row when the versions have not moved since.
func (r *Resolver) chainTip(ctx context.Context) (*db.ChainTip, error) {
	if r.Events == nil {
		return r.Store.ChainTip(ctx)
	}
	at := r.Events.Version()
	if !at.Live {
		return r.Store.ChainTip(ctx)
	}
	c := &r.tips
	c.mu.Lock()
	kept := c.tip
	same := kept != nil && c.at.Chain == at.Chain && c.at.Mempool == at.Mempool
	c.mu.Unlock()
	if same {
		tip := *kept
		return &tip, nil
	}
	tip, err := r.Store.ChainTip(ctx)
	if err != nil {
		return nil, err
	}
	kept = new(db.ChainTip)
	*kept = *tip
	c.mu.Lock()
	c.at, c.tip = at, kept
	c.mu.Unlock()
	return tip, nil
}
