package db

import (
	"context"

	"github.com/stxgraph/stxgraph/stacks/tx"
)

// FtBalance is a principal's balance of a fungible token, in the token's base units (a decimal
// integer: on a chain indexed from its genesis never negative).
type FtBalance struct {
	Token   string `bun:"asset_identifier"`
	Balance string `bun:"balance"`
}

// NftHolding is a non-fungible token a principal holds, with the event that gave it the token.
type NftHolding struct {
	AssetIdentifier    string `bun:"asset_identifier"`
	Value              []byte `bun:"value"`
	Recipient          string `bun:"recipient"`
	TxID               []byte `bun:"tx_id"`
	IndexBlockHash     []byte `bun:"index_block_hash"`
	MicroblockHash     []byte `bun:"microblock_hash"`
	BlockHeight        int32  `bun:"block_height"`
	MicroblockSequence int32  `bun:"microblock_sequence"`
	TxIndex            int32  `bun:"tx_index"`
	EventIndex         int32  `bun:"event_index"`
}

// DecodedValue is the token's value as {hex, repr}.
func (h *NftHolding) DecodedValue() (*tx.ValueJSON, error) { return clarityValue(h.Value) }

// TxKey is the key of the transaction that gave the token.
func (h *NftHolding) TxKey() TxKey {
	return TxKey{TxID: string(h.TxID), IndexBlockHash: string(h.IndexBlockHash), MicroblockHash: string(h.MicroblockHash)}
}

// A principal's token lists are its rows of ft_balances and nft_custody, one per token it
// holds, read through their indexes: a page costs what the principal's holdings do, never its
// history. Each page counts the list beside it (the rows a page skips are the same rows).

// ftBalancesWhere are the tokens of $1 with a balance, in the index's order.
const ftBalancesWhere = " FROM ft_balances WHERE principal = $1::text AND balance > 0"

var (
	ftBalancesPageSQL = "SELECT asset_identifier, balance::text AS balance, count(*) OVER () AS total" + ftBalancesWhere +
		" ORDER BY lower(asset_identifier), asset_identifier LIMIT $2::bigint OFFSET $3::bigint"
	ftBalancesCountSQL = "SELECT count(*) AS total" + ftBalancesWhere
	ftBalanceSQL       = "SELECT asset_identifier, balance::text AS balance FROM ft_balances WHERE principal = $1::text AND asset_identifier = $2::text"
)

// nftHoldingsWhere are the tokens $1 holds, newest acquisition first.
const nftHoldingsWhere = " FROM nft_custody WHERE recipient = $1::text"

var (
	nftHoldingsPageSQL = "SELECT " + NftCustodyColumns + ", count(*) OVER () AS total" + nftHoldingsWhere +
		" ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC LIMIT $2::bigint OFFSET $3::bigint"
	nftHoldingsCountSQL = "SELECT count(*) AS total" + nftHoldingsWhere
)

// TokenHoldingStatements are the prepared reads of the token lists, by name, with $1 a
// principal, $2 the limit or a token, $3 the offset: plan checks explain them.
func TokenHoldingStatements() map[string]string {
	return map[string]string{"ft-balances": ftBalancesPageSQL, "ft-balances-count": ftBalancesCountSQL, "ft-balance": ftBalanceSQL,
		"nft-holdings": nftHoldingsPageSQL, "nft-holdings-count": nftHoldingsCountSQL}
}

type listTotal struct {
	Total int64 `bun:"total"`
}

// pageTotal is the length of a list whose page came back empty: an empty list, unless the page
// asked for no rows or started past the end.
func (s *Store) pageTotal(ctx context.Context, countSQL string, limit, offset int, args ...any) (int64, error) {
	if limit > 0 && offset == 0 {
		return 0, nil
	}
	var t []listTotal
	if err := s.scanPrepared(ctx, countSQL, &t, args...); err != nil || len(t) == 0 {
		return 0, err
	}
	return t[0].Total, nil
}

// FtBalances is a page of the tokens the principal holds a positive balance of, by token
// identifier regardless of case, and how many there are.
func (s *Store) FtBalances(ctx context.Context, principal string, limit, offset int) (int64, []*FtBalance, error) {
	var rows []*struct {
		FtBalance `bun:"extend"`
		listTotal `bun:"extend"`
	}
	if err := s.scanPrepared(ctx, ftBalancesPageSQL, &rows, principal, limit, offset); err != nil {
		return 0, nil, err
	}
	if len(rows) == 0 {
		total, err := s.pageTotal(ctx, ftBalancesCountSQL, limit, offset, principal)
		return total, nil, err
	}
	out := make([]*FtBalance, len(rows))
	for i, r := range rows {
		out[i] = &r.FtBalance
	}
	return rows[0].Total, out, nil
}

// FtBalanceOf is the principal's balance of token, "0" when it never held any.
func (s *Store) FtBalanceOf(ctx context.Context, principal, token string) (*FtBalance, error) {
	var rows []*FtBalance
	if err := s.scanPrepared(ctx, ftBalanceSQL, &rows, principal, token); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return &FtBalance{Token: token, Balance: "0"}, nil
	}
	return rows[0], nil
}

// NftHoldings is a page of the non-fungible tokens the principal holds, newest acquisition
// first, and how many there are.
func (s *Store) NftHoldings(ctx context.Context, principal string, limit, offset int) (int64, []*NftHolding, error) {
	var rows []*struct {
		NftHolding `bun:"extend"`
		listTotal  `bun:"extend"`
	}
	if err := s.scanPrepared(ctx, nftHoldingsPageSQL, &rows, principal, limit, offset); err != nil {
		return 0, nil, err
	}
	if len(rows) == 0 {
		total, err := s.pageTotal(ctx, nftHoldingsCountSQL, limit, offset, principal)
		return total, nil, err
	}
	out := make([]*NftHolding, len(rows))
	for i, r := range rows {
		out[i] = &r.NftHolding
	}
	return rows[0].Total, out, nil
}
