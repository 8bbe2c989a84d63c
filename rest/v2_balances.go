package rest

import (
	"context"
	"net/http"
	"unicode/utf8"

	genql "github.com/Khan/genqlient/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
)

// Default page size of the fungible-token balances, as the reference's.
const ftBalanceLimit = 100

// v2BalanceRoutes are an address's fungible-token balances. The reference caches them by the
// chain tip, and so do they.
func v2BalanceRoutes() []route {
	return []route{
		{path: "/extended/v2/addresses/{principal}/balances/ft", reads: respcache.Chain, parse: ftBalancesParams, pathTag: tipPathTag},
		{path: "/extended/v2/addresses/{principal}/balances/ft/{token}", reads: respcache.Chain, parse: ftBalanceParams, pathTag: tipPathTag},
	}
}

// principalParam reads the principal path parameter; the account query checks the principal
// itself. A path whose escapes decode to no UTF-8 text is refused first, with the reference's
// router's message.
func principalParam(r *http.Request) (string, error) {
	if !utf8.ValidString(r.URL.Path) {
		return "", badURL(r)
	}
	p := mux.Vars(r)["principal"]
	if !principalPrefix.MatchString(p) {
		return "", principalSchemaError("params/principal")
	}
	return p, nil
}

// ftBalancesRead is a read of an address's fungible-token balances.
type ftBalancesRead struct {
	principal     string
	limit, offset int
}

func ftBalancesParams(r *http.Request) (read, error) {
	p, err := principalParam(r)
	if err != nil {
		return nil, err
	}
	q := query(r.URL.Query())
	rd := ftBalancesRead{principal: p}
	if rd.limit, err = q.limit("limit", ftBalanceLimit, resolvers.MaxFtBalancesPage); err != nil {
		return nil, err
	}
	rd.offset, err = q.offset("offset")
	return rd, err
}

func (p ftBalancesRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

// answer renders the page. The reference counts the balances beside the page's rows, so a page
// past the end reports a total of 0.
func (p ftBalancesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2FtBalances(ctx, c, p.principal, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	balances := d.Account.FtBalances
	results := make([]ftBalanceBody, len(balances.Results))
	for i, b := range balances.Results {
		results[i] = ftBalanceBody{Token: b.Token, Balance: b.Balance}
	}
	total := balances.Total
	if len(results) == 0 {
		total = 0
	}
	body, err := marshal(page[ftBalanceBody]{Limit: p.limit, Offset: p.offset, Total: &total, Results: results})
	return body, tipFieldsTag(&d.Tip), err
}

type ftBalanceBody struct {
	Token   string `json:"token"`
	Balance string `json:"balance"`
}

// ftBalanceRead is a read of one token's balance; the account query checks the token.
type ftBalanceRead struct{ principal, token string }

func ftBalanceParams(r *http.Request) (read, error) {
	p, err := principalParam(r)
	return ftBalanceRead{principal: p, token: mux.Vars(r)["token"]}, err
}

func (p ftBalanceRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p ftBalanceRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2FtBalance(ctx, c, p.principal, p.token)
	if err != nil {
		return nil, "", err
	}
	body, err := marshal(struct {
		Balance string `json:"balance"`
	}{d.Account.FtBalance.Balance})
	return body, tipFieldsTag(&d.Tip), err
}
