package resolvers

import (
	"context"
	"encoding/json"

	"github.com/stxgraph/stxgraph/bitcoin/address"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/scalar"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// Page bounds of the PoX lists, as the reference bounds its /extended/v2/pox paths.
const (
	maxPoxCyclesPage   = 60
	maxPoxSignersPage  = 250
	maxPoxStackersPage = 200
)

func (r *Resolver) PoxCycle() graph.PoxCycleResolver     { return &poxCycleResolver{r} }
func (r *Resolver) PoxSigner() graph.PoxSignerResolver   { return &poxSignerResolver{r} }
func (r *Resolver) PoxStacker() graph.PoxStackerResolver { return &poxStackerResolver{r} }

type poxCycleResolver struct{ *Resolver }
type poxSignerResolver struct{ *Resolver }
type poxStackerResolver struct{ *Resolver }

func (r *queryResolver) PoxCycles(ctx context.Context, limit, offset *int32) (*db.PoxCyclePage, error) {
	l, o, err := page(limit, offset, maxPoxCyclesPage)
	if err != nil {
		return nil, err
	}
	return r.Store.PoxCycles(ctx, l, o)
}

// PoxCycle is the cycle's announcement; cycle numbers are never negative.
func (r *queryResolver) PoxCycle(ctx context.Context, cycleNumber int32) (*db.PoxCycle, error) {
	if cycleNumber < 0 {
		return nil, nil
	}
	return r.Store.PoxCycle(ctx, cycleNumber)
}

func (r *poxCycleResolver) Signers(ctx context.Context, c *db.PoxCycle, limit, offset *int32) (*db.PoxSignerPage, error) {
	l, o, err := page(limit, offset, maxPoxSignersPage)
	if err != nil {
		return nil, err
	}
	return r.Store.PoxSigners(ctx, c.CycleNumber, l, o)
}

func (r *poxCycleResolver) Signer(ctx context.Context, c *db.PoxCycle, signingKey []byte) (*db.PoxSigner, error) {
	return r.Store.PoxSigner(ctx, c.CycleNumber, signingKey)
}

func (r *poxSignerResolver) Stackers(ctx context.Context, s *db.PoxSigner, limit, offset *int32) (*db.PoxStackerPage, error) {
	l, o, err := page(limit, offset, maxPoxStackersPage)
	if err != nil {
		return nil, err
	}
	return r.Store.PoxStackers(ctx, s.CycleNumber, s.SigningKey, l, o)
}

// PoxAddress encodes the stacking operation's reward address on the stacker's network (the
// network of its Stacks address); null when the tuple has no standard encoding.
func (r *poxStackerResolver) PoxAddress(_ context.Context, s *db.PoxStacker) (*string, error) {
	var tuple struct {
		Version   string `json:"version"`
		Hashbytes string `json:"hashbytes"`
	}
	if json.Unmarshal(s.PoxAddr, &tuple) != nil {
		return nil, nil
	}
	version, err1 := scalar.ParseHex(tuple.Version)
	hash, err2 := scalar.ParseHex(tuple.Hashbytes)
	if err1 != nil || err2 != nil || len(version) != 1 {
		return nil, nil
	}
	network := address.Testnet
	if p, err := c32.ParsePrincipal(s.StackerAddress); err == nil && p.Address.IsMainnet() {
		network = address.Mainnet
	}
	a, ok := address.FromPox(version[0], hash, network)
	if !ok {
		return nil, nil
	}
	return &a, nil
}
