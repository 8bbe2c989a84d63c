package rest

import (
	"context"
	"net/http"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph/resolvers"
)

// transfersRead is a read of GET /extended/v1/address/{principal}/transactions_with_transfers.
type transfersRead struct {
	accountParams
	limit, offset int
	// height keeps the transactions of one block height.
	height *int
}

func transfersParams(r *http.Request) (read, error) {
	p, err := balanceParams(r)
	if err != nil {
		return nil, err
	}
	rd := transfersRead{accountParams: p}
	q := query(r.URL.Query())
	if rd.limit, err = q.limit("limit", txLimit, resolvers.MaxAccountTxsPage); err != nil {
		return nil, err
	}
	if rd.offset, err = q.offset("offset"); err != nil {
		return nil, err
	}
	height, ok, err := q.integer("height")
	if err != nil {
		return nil, err
	}
	if ok && height > 0 { // the reference treats height=0 as absent
		if p.until.given() {
			return nil, badRequest(resolvers.MsgUntilAndHeight)
		}
		rd.height = &height
	}
	return rd, nil
}

func (p transfersRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return activityTag(ctx, c, p.principal)
}

// answer lists the transactions, contract calls described from the called contract's ABI.
func (p transfersRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := AccountTransactionsWithTransfers(ctx, c, p.principal, p.limit, p.offset, p.height, p.unanchored,
		p.until.height, p.until.hash, false, true)
	if err != nil {
		return nil, "", err
	}
	a := d.Account
	tag := principalTag{LatestTxID: a.Page.LatestTxId}.etag(false)
	results := make([]txWithTransfersBody, len(a.Page.Results))
	for i := range a.Page.Results {
		if results[i], err = txWithTransfers(&a.Page.Results[i]); err != nil {
			return nil, tag, err
		}
	}
	body, err := marshal(page[txWithTransfersBody]{Limit: p.limit, Offset: p.offset, Total: &a.Page.Total, Results: results})
	return body, tag, err
}

// txWithTransfersBody is a transaction with the account's transfers in it.
type txWithTransfersBody struct {
	Tx           txBody            `json:"tx"`
	StxSent      string            `json:"stx_sent"`
	StxReceived  string            `json:"stx_received"`
	StxTransfers []stxTransferBody `json:"stx_transfers"`
	FtTransfers  []ftTransferBody  `json:"ft_transfers"`
	NftTransfers []nftTransferBody `json:"nft_transfers"`
}

// A transfer's missing counterpart (the sender of a mint, the recipient of a burn) reads "", as
// in the reference.
type (
	stxTransferBody struct {
		Amount    string `json:"amount"`
		Sender    string `json:"sender"`
		Recipient string `json:"recipient"`
	}
	ftTransferBody struct {
		Amount          string `json:"amount"`
		AssetIdentifier string `json:"asset_identifier"`
		Sender          string `json:"sender"`
		Recipient       string `json:"recipient"`
	}
	nftTransferBody struct {
		Value           clarityValue `json:"value"`
		AssetIdentifier string       `json:"asset_identifier"`
		Sender          string       `json:"sender"`
		Recipient       string       `json:"recipient"`
	}
)

func txWithTransfers(r *AccountTransactionsWithTransfersAccountPageTransactionsWithTransfersPageResultsTransactionWithTransfers) (txWithTransfersBody, error) {
	tx, err := minedTxBody(&r.Tx, nil)
	out := txWithTransfersBody{
		Tx: tx, StxSent: r.Stx_sent, StxReceived: r.Stx_received,
		StxTransfers: make([]stxTransferBody, len(r.Stx_transfers)),
		FtTransfers:  make([]ftTransferBody, len(r.Ft_transfers)),
		NftTransfers: make([]nftTransferBody, len(r.Nft_transfers)),
	}
	for i, t := range r.Stx_transfers {
		out.StxTransfers[i] = stxTransferBody{t.Amount, deref(t.Sender), deref(t.Recipient)}
	}
	for i, t := range r.Ft_transfers {
		out.FtTransfers[i] = ftTransferBody{t.Amount, t.Asset_identifier, deref(t.Sender), deref(t.Recipient)}
	}
	for i, t := range r.Nft_transfers {
		out.NftTransfers[i] = nftTransferBody{clarityValue(t.Value), t.Asset_identifier, deref(t.Sender), deref(t.Recipient)}
	}
	return out, err
}
