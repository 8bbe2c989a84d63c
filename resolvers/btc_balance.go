package resolvers

import (
	"context"
	"strconv"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/graph"
)

// satsPerBTC converts satoshis to BTC.
const satsPerBTC = 1e8

func (r queryResolver) FaucetBtcBalance(ctx context.Context, address string) (*graph.BtcBalance, error) {
	if r.Faucet == nil {
		return nil, stxgraph.Errorf(stxgraph.EFORBIDDEN, "BTC faucet is not fully configured")
	}
	sats, err := r.Faucet.BTCBalance(ctx, address)
	if err != nil {
		return nil, err
	}
	return &graph.BtcBalance{Satoshis: strconv.FormatInt(sats, 10), Btc: float64(sats) / satsPerBTC}, nil
}
