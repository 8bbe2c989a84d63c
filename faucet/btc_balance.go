package faucet

import (
	"context"
	"errors"
	"log/slog"

	"github.com/btcsuite/btcd/address/v2"

	"github.com/stxgraph/stxgraph"
)

// BTCBalances reads the balance of a Bitcoin address on the faucet's network.
type BTCBalances interface {
	Balance(ctx context.Context, address string) (int64, error)
}

// Balance is the value (satoshis) of addr's confirmed unspent outputs on the faucet's node.
func (b *BTC) Balance(ctx context.Context, addr string) (int64, error) {
	a, err := b.parseAddress(addr)
	if err != nil {
		return 0, err
	}
	node, err := b.connect(ctx)
	if err != nil {
		return 0, err
	}
	return node.Balance(ctx, []address.Address{a})
}

// BTCBalance reads a Bitcoin address's balance through the BTC faucet's node (testnet only, as
// the faucets).
func (s *Service) BTCBalance(ctx context.Context, addr string) (int64, error) {
	if err := s.testnet(); err != nil {
		return 0, err
	}
	b, ok := s.cfg.BTC.(BTCBalances)
	if !ok {
		return 0, stxgraph.Errorf(stxgraph.EFORBIDDEN, msgBTCNotConfig)
	}
	sats, err := b.Balance(ctx, addr)
	var app *stxgraph.Error
	switch {
	case err == nil:
		return sats, nil
	case errors.As(err, &app) && app.Code != stxgraph.EINTERNAL:
		return 0, app
	default:
		slog.ErrorContext(ctx, "BTC balance read failed", "err", err)
		return 0, stxgraph.Errorf(stxgraph.EUNAVAILABLE, msgUnavailable)
	}
}
