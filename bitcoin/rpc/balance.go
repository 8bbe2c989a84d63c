package rpc

import (
	"context"

	"github.com/btcsuite/btcd/address/v2"
)

// Balance is the value, in satoshis, of the confirmed unspent outputs paying addrs, immature
// coinbase outputs included: what bitcoind's scantxoutset totals. Outputs that a transaction in
// the mempool spends are left out (see OutputFinder).
func (c *Client) Balance(ctx context.Context, addrs []address.Address) (int64, error) {
	outs, err := c.outputs.Unspent(ctx, addrs)
	if err != nil {
		return 0, err
	}
	var sats int64
	for _, o := range outs {
		if o.Confirmations >= 1 {
			sats += o.Value
		}
	}
	return sats, nil
}
