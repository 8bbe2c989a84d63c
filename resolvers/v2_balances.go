package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// nftHoldingsMax is the largest page of an account's NFT holdings, as the reference's.
const nftHoldingsMax = 200

type nftHoldingResolver struct{ *Resolver }

func (r *Resolver) NftHolding() graph.NftHoldingResolver { return nftHoldingResolver{r} }

func (r accountResolver) FtBalances(ctx context.Context, a *db.Account, limit, offset *int32) (*graph.FtBalancePage, error) {
	l, o, err := page(limit, offset, MaxFtBalancesPage)
	if err != nil {
		return nil, err
	}
	total, balances, err := r.Store.FtBalances(ctx, a.Principal, l, o)
	if err != nil {
		return nil, err
	}
	return &graph.FtBalancePage{Total: int32(total), Results: balances}, nil
}

// stxToken names the STX balance among the token balances, as the reference keeps it there.
const stxToken = "stx"

func (r accountResolver) FtBalance(ctx context.Context, a *db.Account, token string) (*db.FtBalance, error) {
	if err := checkText("token", token); err != nil {
		return nil, err
	}
	if token == stxToken {
		b, err := loaders.For(ctx).StxBalance.Load(ctx, loaders.BalanceKey{Principal: a.Principal})()
		if err != nil {
			return nil, err
		}
		return &db.FtBalance{Token: token, Balance: b.Balance}, nil
	}
	return r.Store.FtBalanceOf(ctx, a.Principal, token)
}

func (r accountResolver) NftHoldings(ctx context.Context, a *db.Account, limit, offset *int32) (*graph.NftHoldingPage, error) {
	l, o, err := page(limit, offset, nftHoldingsMax)
	if err != nil {
		return nil, err
	}
	total, holdings, err := r.Store.NftHoldings(ctx, a.Principal, l, o)
	if err != nil {
		return nil, err
	}
	return &graph.NftHoldingPage{Total: int32(total), Results: holdings}, nil
}

func (r nftHoldingResolver) Transaction(ctx context.Context, h *db.NftHolding) (*db.Tx, error) {
	return loaders.For(ctx).TxByKey.Load(ctx, h.TxKey())()
}
