package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/respcache"
)

// BRC-20 paths of the reference's Ordinals API, served under /ordinals/v1 and /ordinals as it
// does. Pages are {limit, offset, total, results} with limit 1 to 60 (default 20); an unknown
// token is 404 {"error":"Not found"}; bad parameters, and tickers no token can have, are 400 with
// the validator's message. Where the reference's answers are accidents, these differ:
//   - a holders page lists, and its total counts, addresses holding the token (the reference's
//     total also counts addresses whose balance went back to zero);
//   - the activity's ticker filter matches in any case, as the lookup does (the reference's
//     current code compares it with the lower-case ticker as given);
//   - a token shows the fields of the documented interface (no self_mint).

const brc20Limit, brc20Max = 20, 60

func brc20Routes() []route {
	var out []route
	for _, prefix := range []string{"/ordinals/v1", "/ordinals"} {
		out = append(out,
			route{path: prefix + "/brc-20/tokens", op: "Brc20Tokens", params: brc20TokensParams, body: brc20TokensBody},
			route{path: prefix + "/brc-20/tokens/{ticker}", op: "Brc20Token", params: brc20TickerParams, body: brc20TokenBody},
			route{path: prefix + "/brc-20/tokens/{ticker}/holders", op: "Brc20Holders", params: brc20HoldersParams, body: brc20HoldersBody},
			route{path: prefix + "/brc-20/balances/{address}", op: "Brc20Balances", params: brc20BalancesParams, body: brc20PageBody("brc20Address", "balances")},
			route{path: prefix + "/brc-20/balances/{address}/transferable", op: "Brc20Transferables", params: brc20TransferablesParams,
				body: brc20PageBody("brc20Address", "transferables")},
			route{path: prefix + "/brc-20/activity", op: "Brc20Activity", params: brc20ActivityParams, body: brc20ActivityBody},
		)
	}
	for i := range out {
		out[i].writeError, out[i].reads = brc20Error, respcache.Brc20
	}
	return out
}

// brc20Error writes errors as the Ordinals API does: 404 {"error":"Not found"}, others in the
// validator's shape.
func brc20Error(w http.ResponseWriter, err error) {
	if stxgraph.ErrorCode(err) == stxgraph.ENOTFOUND {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Not found"})
		return
	}
	writeError(w, err)
}

var errBrc20NotFound = stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")

// brc20Paging reads limit (1 to 60, default 20) and offset (0 or more) into vars.
func brc20Paging(q query, vars map[string]any) error {
	limit, ok, err := brc20Int(q, "limit")
	switch {
	case err != nil:
		return err
	case !ok:
		limit = brc20Limit
	case limit < 1:
		return schemaError("querystring/limit must be >= 1")
	case limit > brc20Max:
		return schemaError("querystring/limit must be <= %d", brc20Max)
	}
	offset, _, err := brc20Int(q, "offset")
	if err != nil {
		return err
	}
	if offset < 0 {
		return schemaError("querystring/offset must be >= 0")
	}
	vars["limit"], vars["offset"] = limit, offset
	return nil
}

// brc20Int parses an optional integer parameter within GraphQL's Int.
func brc20Int(q query, name string) (int, bool, error) {
	vs, ok := q[name]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(vs[0], 10, 32)
	if err != nil {
		if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
			return 0, false, schemaError("querystring/%s is out of range", name)
		}
		return 0, false, schemaError("querystring/%s must be integer", name)
	}
	return int(n), true, nil
}

var blockHeightPattern = regexp.MustCompile(`^[0-9]+$`)

// brc20BlockHeight reads the optional block_height parameter into vars.
func brc20BlockHeight(q query, vars map[string]any) error {
	s, ok := q["block_height"]
	if !ok {
		return nil
	}
	if !blockHeightPattern.MatchString(s[0]) {
		return schemaError(`querystring/block_height must match pattern "^[0-9]+$"`)
	}
	h, err := strconv.ParseInt(s[0], 10, 32)
	if err != nil {
		return schemaError("querystring/block_height is out of range")
	}
	vars["blockHeight"] = int(h)
	return nil
}

// brc20Tickers reads the repeatable ticker parameter (each value one ticker, commas included).
func brc20Tickers(q query, vars map[string]any) {
	if ts := q["ticker"]; len(ts) > 0 {
		vars["tickers"] = ts
	}
}

func brc20TokensParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	vars := map[string]any{"orderBy": "INDEX"}
	brc20Tickers(q, vars)
	if o, ok := q["order_by"]; ok {
		switch o[0] {
		case "index":
		case "tx_count":
			vars["orderBy"] = "TX_COUNT"
		default:
			return nil, schemaError("querystring/order_by must be equal to one of the allowed values")
		}
	}
	return vars, brc20Paging(q, vars)
}

func brc20TickerParams(r *http.Request) (map[string]any, error) {
	return map[string]any{"ticker": mux.Vars(r)["ticker"]}, nil
}

func brc20HoldersParams(r *http.Request) (map[string]any, error) {
	vars, _ := brc20TickerParams(r)
	return vars, brc20Paging(query(r.URL.Query()), vars)
}

func brc20BalancesParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	vars := map[string]any{"address": mux.Vars(r)["address"]}
	brc20Tickers(q, vars)
	if err := brc20BlockHeight(q, vars); err != nil {
		return nil, err
	}
	return vars, brc20Paging(q, vars)
}

func brc20TransferablesParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	vars := map[string]any{"address": mux.Vars(r)["address"]}
	brc20Tickers(q, vars)
	return vars, brc20Paging(q, vars)
}

func brc20ActivityParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	vars := map[string]any{}
	brc20Tickers(q, vars)
	if err := brc20BlockHeight(q, vars); err != nil {
		return nil, err
	}
	if ops := q["operation"]; len(ops) > 0 {
		enum := make([]string, len(ops))
		for i, op := range ops {
			switch op {
			case "deploy", "mint", "transfer", "transfer_send":
				enum[i] = strings.ToUpper(op)
			default:
				return nil, schemaError("querystring/operation/%d must be equal to one of the allowed values", i)
			}
		}
		vars["operations"] = enum
	}
	if a, ok := q["address"]; ok {
		vars["address"] = a[0]
	}
	return vars, brc20Paging(q, vars)
}

// brc20Token is a token as the reference shows it.
type brc20Token struct {
	ID              string `json:"id"`
	Number          int64  `json:"number"`
	BlockHeight     int64  `json:"block_height"`
	TxID            string `json:"tx_id"`
	Address         string `json:"address"`
	Ticker          string `json:"ticker"`
	MaxSupply       string `json:"max_supply"`
	MintLimit       string `json:"mint_limit"`
	Decimals        int    `json:"decimals"`
	DeployTimestamp int64  `json:"deploy_timestamp"`
	MintedSupply    string `json:"minted_supply"`
	TxCount         int64  `json:"tx_count"`
}

func brc20TokenBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	var d struct {
		Token *struct {
			brc20Token
			Holders int64 `json:"holders"`
		} `json:"token"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if d.Token == nil {
		return nil, errBrc20NotFound
	}
	return marshal(brc20TokenDetails{Token: d.Token.brc20Token,
		Supply: brc20Supply{d.Token.MaxSupply, d.Token.MintedSupply, d.Token.Holders}})
}

type brc20TokenDetails struct {
	Token  brc20Token  `json:"token"`
	Supply brc20Supply `json:"supply"`
}

type brc20Supply struct {
	MaxSupply    string `json:"max_supply"`
	MintedSupply string `json:"minted_supply"`
	Holders      int64  `json:"holders"`
}

// brc20Page is a page of the reference: {limit, offset, total, results}.
type brc20Page[T any] struct {
	Limit   int `json:"limit"`
	Offset  int `json:"offset"`
	Total   int `json:"total"`
	Results []T `json:"results"`
}

// brc20PageOf renders the page at path in data (its total and results as the operation
// selected them) with the request's limit and offset.
func brc20PageOf[T any](vars map[string]any, data json.RawMessage, path ...string) ([]byte, error) {
	p := brc20Page[T]{Limit: vars["limit"].(int), Offset: vars["offset"].(int)}
	if err := json.Unmarshal(pick(data, path...), &p); err != nil {
		return nil, err
	}
	if p.Results == nil {
		p.Results = []T{}
	}
	return marshal(p)
}

func brc20TokensBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	return brc20PageOf[brc20Token](vars, data, "tokens")
}

func brc20HoldersBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	if t := pick(data, "token"); len(t) == 0 || string(t) == "null" {
		return nil, errBrc20NotFound
	}
	return brc20PageOf[json.RawMessage](vars, data, "token", "holders")
}

// brc20PageBody renders a page whose results the operation already selected in the reference's
// shape.
func brc20PageBody(path ...string) func(map[string]any, json.RawMessage) ([]byte, error) {
	return func(vars map[string]any, data json.RawMessage) ([]byte, error) {
		return brc20PageOf[json.RawMessage](vars, data, path...)
	}
}

// brc20Activity is an operation as the reference shows it: the common members, then one object
// named after the operation with its figures.
type brc20Activity struct {
	Operation     string             `json:"operation"`
	Ticker        string             `json:"ticker"`
	InscriptionID string             `json:"inscription_id"`
	BlockHeight   int64              `json:"block_height"`
	BlockHash     string             `json:"block_hash"`
	TxID          string             `json:"tx_id"`
	Location      string             `json:"location"`
	Address       string             `json:"address"`
	Timestamp     int64              `json:"timestamp"`
	Mint          *brc20Mint         `json:"mint,omitempty"`
	Deploy        *brc20Deploy       `json:"deploy,omitempty"`
	Transfer      *brc20Transfer     `json:"transfer,omitempty"`
	TransferSend  *brc20TransferSend `json:"transfer_send,omitempty"`
}

type brc20Mint struct {
	Amount *string `json:"amount"`
}

type brc20Deploy struct {
	MaxSupply *string `json:"max_supply"`
	MintLimit *string `json:"mint_limit"`
	Decimals  int     `json:"decimals"`
}

type brc20Transfer struct {
	Amount      *string `json:"amount"`
	FromAddress *string `json:"from_address"`
}

type brc20TransferSend struct {
	Amount      *string `json:"amount"`
	FromAddress *string `json:"from_address"`
	ToAddress   *string `json:"to_address"`
}

func brc20ActivityBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	var d struct {
		Total   int `json:"total"`
		Results []struct {
			brc20Activity
			Amount      *string `json:"amount"`
			FromAddress *string `json:"from_address"`
			ToAddress   *string `json:"to_address"`
			MaxSupply   *string `json:"max_supply"`
			MintLimit   *string `json:"mint_limit"`
			Decimals    int     `json:"decimals"`
		} `json:"results"`
	}
	if err := json.Unmarshal(pick(data, "brc20Activity"), &d); err != nil {
		return nil, err
	}
	p := brc20Page[brc20Activity]{Limit: vars["limit"].(int), Offset: vars["offset"].(int), Total: d.Total,
		Results: make([]brc20Activity, len(d.Results))}
	for i, r := range d.Results {
		a := r.brc20Activity
		a.Operation = strings.ToLower(a.Operation)
		switch a.Operation {
		case "deploy":
			a.Deploy = &brc20Deploy{r.MaxSupply, r.MintLimit, r.Decimals}
		case "mint":
			a.Mint = &brc20Mint{r.Amount}
		case "transfer":
			a.Transfer = &brc20Transfer{r.Amount, r.FromAddress}
		case "transfer_send":
			a.TransferSend = &brc20TransferSend{r.Amount, r.FromAddress, r.ToAddress}
		}
		p.Results[i] = a
	}
	return marshal(p)
}

// marshal encodes v compactly as JSON with <, > and & as they are, as the reference writes them.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
