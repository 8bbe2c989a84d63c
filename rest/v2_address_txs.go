package rest

import (
	"context"
	"net/http"

	genql "github.com/Khan/genqlient/graphql"

	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// v2AddressTxsRead is a read of GET /extended/v2/addresses/{address}/transactions.
type v2AddressTxsRead struct {
	principal string
	// valid is whether the address can occur: the reference lists nothing, without an error,
	// for one that cannot.
	valid               bool
	limit, offset       int
	excludeFunctionArgs bool
}

func v2AddressTxsParams(r *http.Request) (read, error) {
	a, err := v2Address(r)
	if err != nil {
		return nil, err
	}
	p := v2AddressTxsRead{principal: a, valid: c32.ValidPrincipalLenient(a)}
	q := query(r.URL.Query())
	if p.limit, err = q.keptLimit("limit", txLimit, resolvers.MaxAccountTxsPage); err != nil {
		return nil, err
	}
	if p.offset, err = q.offset("offset"); err != nil {
		return nil, err
	}
	p.excludeFunctionArgs, err = q.boolean("exclude_function_args")
	return p, err
}

func (p v2AddressTxsRead) etag(ctx context.Context, c genql.Client) (string, error) {
	if !p.valid {
		return "", nil
	}
	return activityTag(ctx, c, p.principal)
}

// answer lists the transactions; like every v2 transaction list of the reference, contract
// calls are described without the called contract's ABI.
func (p v2AddressTxsRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	if !p.valid {
		body, err := marshal(page[txSummaryBody]{Limit: p.limit, Offset: p.offset, Total: new(int), Results: []txSummaryBody{}})
		return body, "", err
	}
	d, err := V2AddressTransactions(ctx, c, p.principal, p.limit, p.offset, p.excludeFunctionArgs, false)
	if err != nil {
		return nil, "", err
	}
	a := d.Account
	tag := principalTag{LatestTxID: a.Page.LatestTxId}.etag(false)
	results := make([]txSummaryBody, len(a.Page.Results))
	for i := range a.Page.Results {
		r := &a.Page.Results[i]
		tx, err := minedTxBody(&r.Tx, nil)
		if err != nil {
			return nil, tag, err
		}
		results[i] = txSummaryBody{Tx: tx, StxSent: r.Stx_sent, StxReceived: r.Stx_received}
		e := &results[i].Events
		e.Stx, e.Ft, e.Nft = eventKindCounts(r.Events.Stx), eventKindCounts(r.Events.Ft), eventKindCounts(r.Events.Nft)
	}
	body, err := marshal(page[txSummaryBody]{Limit: p.limit, Offset: p.offset, Total: &a.Page.Total, Results: results})
	return body, tag, err
}

// txSummaryBody is a transaction with the STX the address sent and received in it, and how many
// of its asset events of each kind involve the address.
type txSummaryBody struct {
	Tx          txBody `json:"tx"`
	StxSent     string `json:"stx_sent"`
	StxReceived string `json:"stx_received"`
	Events      struct {
		Stx eventKindCounts `json:"stx"`
		Ft  eventKindCounts `json:"ft"`
		Nft eventKindCounts `json:"nft"`
	} `json:"events"`
}

type eventKindCounts struct {
	Transfer int `json:"transfer"`
	Mint     int `json:"mint"`
	Burn     int `json:"burn"`
}
