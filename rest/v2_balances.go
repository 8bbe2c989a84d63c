package rest

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/respcache"
)

// Page size (default, maximum) of the fungible-token balances, as the reference's.
const ftBalanceLimit, ftBalanceMax = 100, 200

// v2BalanceRoutes are an address's fungible-token balances. The reference caches them by the
// chain tip, and so do they.
func v2BalanceRoutes() []route {
	return []route{
		{
			path: "/extended/v2/addresses/{principal}/balances/ft", op: "V2FtBalances", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: ftBalancesParams,
			etag:   chainTipETag,
			body:   ftBalancesBody,
		},
		{
			path: "/extended/v2/addresses/{principal}/balances/ft/{token}", op: "V2FtBalance", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: ftBalanceParams,
			etag:   chainTipETag,
			body: func(_ map[string]any, data json.RawMessage) ([]byte, error) {
				return reshape(pick(data, "account", "ftBalance"))
			},
		},
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

func ftBalancesParams(r *http.Request) (map[string]any, error) {
	p, err := principalParam(r)
	if err != nil {
		return nil, err
	}
	q := query(r.URL.Query())
	vars := map[string]any{"principal": p}
	if vars["limit"], err = q.limit("limit", ftBalanceLimit, ftBalanceMax); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.offset("offset"); err != nil {
		return nil, err
	}
	return vars, nil
}

// ftBalanceParams reads the principal and the token; the account query checks the token.
func ftBalanceParams(r *http.Request) (map[string]any, error) {
	p, err := principalParam(r)
	if err != nil {
		return nil, err
	}
	return map[string]any{"principal": p, "token": mux.Vars(r)["token"]}, nil
}

// ftBalancesBody renders the page. The reference counts the balances beside the page's rows, so
// a page past the end reports a total of 0.
func ftBalancesBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	var page struct {
		Total   int               `json:"total"`
		Results []json.RawMessage `json:"results"`
	}
	balances := pick(data, "account", "ftBalances")
	if err := json.Unmarshal(balances, &page); err != nil {
		return nil, err
	}
	if len(page.Results) == 0 {
		page.Total = 0
	}
	results, err := reshape(pick(balances, "results"))
	if err != nil {
		return nil, err
	}
	return wrapPage(vars, "results", results, &page.Total), nil
}
