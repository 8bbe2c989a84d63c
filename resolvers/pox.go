package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// Page bounds of the PoX lists, as the reference bounds its /extended/v2/pox paths.
const (
	maxPoxCyclesPage   = 60
	maxPoxSignersPage  = 250
	maxPoxStackersPage = 200
)

func (r *Resolver) PoxCycle() graph.PoxCycleResolver   { return poxCycleResolver{r} }
func (r *Resolver) PoxSigner() graph.PoxSignerResolver { return poxSignerResolver{r} }

type poxCycleResolver struct{ *Resolver }
type poxSignerResolver struct{ *Resolver }

func (r queryResolver) PoxCycles(ctx context.Context, limit, offset *int32) (*db.PoxCyclePage, error) {
	l, o, err := page(limit, offset, maxPoxCyclesPage)
	if err != nil {
		return nil, err
	}
	return r.Store.PoxCycles(ctx, l, o)
}

// PoxCycle is the cycle's announcement; cycle numbers are never negative.
func (r queryResolver) PoxCycle(ctx context.Context, cycleNumber int32) (*db.PoxCycle, error) {
	if cycleNumber < 0 {
		return nil, nil
	}
	return r.Store.PoxCycle(ctx, cycleNumber)
}

func (r poxCycleResolver) Signers(ctx context.Context, c *db.PoxCycle, limit, offset *int32) (*db.PoxSignerPage, error) {
	l, o, err := page(limit, offset, maxPoxSignersPage)
	if err != nil {
		return nil, err
	}
	return loaders.For(ctx).PoxSigners.Load(ctx, loaders.PoxSignersKey{Cycle: c.CycleNumber, Page: db.PoxPage{Limit: l, Offset: o}})()
}

func (r poxCycleResolver) Signer(ctx context.Context, c *db.PoxCycle, signingKey []byte) (*db.PoxSigner, error) {
	return loaders.For(ctx).PoxSigner.Load(ctx, db.PoxSignerKey{Cycle: c.CycleNumber, Key: string(signingKey)})()
}

func (r poxSignerResolver) Stackers(ctx context.Context, s *db.PoxSigner, limit, offset *int32) (*db.PoxStackerPage, error) {
	l, o, err := page(limit, offset, maxPoxStackersPage)
	if err != nil {
		return nil, err
	}
	key := db.PoxSignerKey{Cycle: s.CycleNumber, Key: string(s.SigningKey)}
	return loaders.For(ctx).PoxStackers.Load(ctx, loaders.PoxStackersKey{Signer: key, Page: db.PoxPage{Limit: l, Offset: o}})()
}
