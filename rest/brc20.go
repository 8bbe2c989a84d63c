package rest

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	genql "github.com/Khan/genqlient/graphql"
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
			route{path: prefix + "/brc-20/tokens", parse: brc20TokensParams},
			route{path: prefix + "/brc-20/tokens/{ticker}", parse: brc20TokenParams},
			route{path: prefix + "/brc-20/tokens/{ticker}/holders", parse: brc20HoldersParams},
			route{path: prefix + "/brc-20/balances/{address}", parse: brc20BalancesParams},
			route{path: prefix + "/brc-20/balances/{address}/transferable", parse: brc20TransferablesParams},
			route{path: prefix + "/brc-20/activity", parse: brc20ActivityParams},
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

// brc20Untagged is embedded in the BRC-20 reads: the Ordinals API sets no ETag.
type brc20Untagged struct{}

func (brc20Untagged) etag(context.Context, genql.Client) (string, error) { return "", nil }

// brc20Paging is a page's limit (1 to 60, default 20) and offset (0 or more).
type brc20Paging struct{ limit, offset int }

func parseBrc20Paging(q query) (brc20Paging, error) {
	limit, ok, err := brc20Int(q, "limit")
	switch {
	case err != nil:
		return brc20Paging{}, err
	case !ok:
		limit = brc20Limit
	case limit < 1:
		return brc20Paging{}, schemaError("querystring/limit must be >= 1")
	case limit > brc20Max:
		return brc20Paging{}, schemaError("querystring/limit must be <= %d", brc20Max)
	}
	offset, _, err := brc20Int(q, "offset")
	if err != nil {
		return brc20Paging{}, err
	}
	if offset < 0 {
		return brc20Paging{}, schemaError("querystring/offset must be >= 0")
	}
	return brc20Paging{limit, offset}, nil
}

// brc20PageOf is a page of results at p with the operation's total.
func brc20PageOf[T any](p brc20Paging, total int, results []T) page[T] {
	return page[T]{Limit: p.limit, Offset: p.offset, Total: &total, Results: results}
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

// brc20BlockHeight reads the optional block_height parameter (nil when absent).
func brc20BlockHeight(q query) (*int, error) {
	s, ok := q["block_height"]
	if !ok {
		return nil, nil
	}
	if !blockHeightPattern.MatchString(s[0]) {
		return nil, schemaError(`querystring/block_height must match pattern "^[0-9]+$"`)
	}
	h, err := strconv.ParseInt(s[0], 10, 32)
	if err != nil {
		return nil, schemaError("querystring/block_height is out of range")
	}
	height := int(h)
	return &height, nil
}

// brc20Tickers reads the repeatable ticker parameter (each value one ticker, commas included;
// nil when absent).
func brc20Tickers(q query) []string {
	if ts := q["ticker"]; len(ts) > 0 {
		return ts
	}
	return nil
}

// brc20TokensRead is a read of GET /ordinals/v1/brc-20/tokens.
type brc20TokensRead struct {
	brc20Untagged
	tickers []string
	orderBy Brc20TokenOrder
	brc20Paging
}

func brc20TokensParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	p := brc20TokensRead{tickers: brc20Tickers(q), orderBy: Brc20TokenOrderIndex}
	if o, ok := q["order_by"]; ok {
		switch o[0] {
		case "index":
		case "tx_count":
			p.orderBy = Brc20TokenOrderTxCount
		default:
			return nil, schemaError("querystring/order_by must be equal to one of the allowed values")
		}
	}
	var err error
	p.brc20Paging, err = parseBrc20Paging(q)
	return p, err
}

func (p brc20TokensRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Tokens(ctx, c, p.tickers, p.orderBy, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tokens := make([]brc20Token, len(d.Tokens.Results))
	for i, t := range d.Tokens.Results {
		tokens[i] = newBrc20Token(t.Brc20TokenFields)
	}
	body, err := marshal(brc20PageOf(p.brc20Paging, d.Tokens.Total, tokens))
	return body, "", err
}

// brc20Token is a token as the reference shows it.
type brc20Token struct {
	ID              string `json:"id"`
	Number          int    `json:"number"`
	BlockHeight     int    `json:"block_height"`
	TxID            string `json:"tx_id"`
	Address         string `json:"address"`
	Ticker          string `json:"ticker"`
	MaxSupply       string `json:"max_supply"`
	MintLimit       string `json:"mint_limit"`
	Decimals        int    `json:"decimals"`
	DeployTimestamp int    `json:"deploy_timestamp"`
	MintedSupply    string `json:"minted_supply"`
	TxCount         int    `json:"tx_count"`
}

func newBrc20Token(t Brc20TokenFields) brc20Token {
	return brc20Token{
		ID: t.Id, Number: t.Number, BlockHeight: t.Block_height, TxID: t.Tx_id, Address: t.Address, Ticker: t.Ticker,
		MaxSupply: t.Max_supply, MintLimit: t.Mint_limit, Decimals: t.Decimals, DeployTimestamp: t.Deploy_timestamp,
		MintedSupply: t.Minted_supply, TxCount: t.Tx_count,
	}
}

// brc20TokenRead is a read of GET /ordinals/v1/brc-20/tokens/{ticker}.
type brc20TokenRead struct {
	brc20Untagged
	ticker string
}

func brc20TokenParams(r *http.Request) (read, error) {
	return brc20TokenRead{ticker: mux.Vars(r)["ticker"]}, nil
}

func (p brc20TokenRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Token(ctx, c, p.ticker)
	if err != nil {
		return nil, "", err
	}
	if d.Token == nil {
		return nil, "", errBrc20NotFound
	}
	t := d.Token
	body, err := marshal(brc20TokenDetails{Token: newBrc20Token(t.Brc20TokenFields),
		Supply: brc20Supply{t.Max_supply, t.Minted_supply, t.Holders}})
	return body, "", err
}

type brc20TokenDetails struct {
	Token  brc20Token  `json:"token"`
	Supply brc20Supply `json:"supply"`
}

type brc20Supply struct {
	MaxSupply    string `json:"max_supply"`
	MintedSupply string `json:"minted_supply"`
	Holders      int    `json:"holders"`
}

// brc20HoldersRead is a read of GET /ordinals/v1/brc-20/tokens/{ticker}/holders.
type brc20HoldersRead struct {
	brc20Untagged
	ticker string
	brc20Paging
}

func brc20HoldersParams(r *http.Request) (read, error) {
	p, err := parseBrc20Paging(query(r.URL.Query()))
	return brc20HoldersRead{ticker: mux.Vars(r)["ticker"], brc20Paging: p}, err
}

type brc20Holder struct {
	Address        string `json:"address"`
	OverallBalance string `json:"overall_balance"`
}

func (p brc20HoldersRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Holders(ctx, c, p.ticker, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	if d.Token == nil {
		return nil, "", errBrc20NotFound
	}
	holders := d.Token.Holders
	results := make([]brc20Holder, len(holders.Results))
	for i, h := range holders.Results {
		results[i] = brc20Holder{h.Address, h.Overall_balance}
	}
	body, err := marshal(brc20PageOf(p.brc20Paging, holders.Total, results))
	return body, "", err
}

// brc20BalancesRead is a read of GET /ordinals/v1/brc-20/balances/{address}.
type brc20BalancesRead struct {
	brc20Untagged
	address     string
	tickers     []string
	blockHeight *int
	brc20Paging
}

func brc20BalancesParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	p := brc20BalancesRead{address: mux.Vars(r)["address"], tickers: brc20Tickers(q)}
	var err error
	if p.blockHeight, err = brc20BlockHeight(q); err != nil {
		return nil, err
	}
	p.brc20Paging, err = parseBrc20Paging(q)
	return p, err
}

type brc20Balance struct {
	Ticker               string `json:"ticker"`
	AvailableBalance     string `json:"available_balance"`
	TransferrableBalance string `json:"transferrable_balance"`
	OverallBalance       string `json:"overall_balance"`
}

func (p brc20BalancesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Balances(ctx, c, p.address, p.tickers, p.blockHeight, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	balances := d.Brc20Address.Balances
	results := make([]brc20Balance, len(balances.Results))
	for i, b := range balances.Results {
		results[i] = brc20Balance{b.Ticker, b.Available_balance, b.Transferrable_balance, b.Overall_balance}
	}
	body, err := marshal(brc20PageOf(p.brc20Paging, balances.Total, results))
	return body, "", err
}

// brc20TransferablesRead is a read of GET /ordinals/v1/brc-20/balances/{address}/transferable.
type brc20TransferablesRead struct {
	brc20Untagged
	address string
	tickers []string
	brc20Paging
}

func brc20TransferablesParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	p, err := parseBrc20Paging(q)
	return brc20TransferablesRead{address: mux.Vars(r)["address"], tickers: brc20Tickers(q), brc20Paging: p}, err
}

type brc20Transferable struct {
	InscriptionNumber int    `json:"inscription_number"`
	InscriptionID     string `json:"inscription_id"`
	OrdinalNumber     string `json:"ordinal_number"`
	Amount            string `json:"amount"`
	Ticker            string `json:"ticker"`
}

func (p brc20TransferablesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Transferables(ctx, c, p.address, p.tickers, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	transferables := d.Brc20Address.Transferables
	results := make([]brc20Transferable, len(transferables.Results))
	for i, t := range transferables.Results {
		results[i] = brc20Transferable{t.Inscription_number, t.Inscription_id, t.Ordinal_number, t.Amount, t.Ticker}
	}
	body, err := marshal(brc20PageOf(p.brc20Paging, transferables.Total, results))
	return body, "", err
}

// brc20ActivityRead is a read of GET /ordinals/v1/brc-20/activity.
type brc20ActivityRead struct {
	brc20Untagged
	tickers     []string
	operations  []Brc20Operation
	address     *string
	blockHeight *int
	brc20Paging
}

func brc20ActivityParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	p := brc20ActivityRead{tickers: brc20Tickers(q)}
	var err error
	if p.blockHeight, err = brc20BlockHeight(q); err != nil {
		return nil, err
	}
	if p.operations, err = brc20Operations(q); err != nil {
		return nil, err
	}
	if a, ok := q["address"]; ok {
		p.address = &a[0]
	}
	p.brc20Paging, err = parseBrc20Paging(q)
	return p, err
}

// brc20Operations reads the repeatable operation parameter (nil when absent).
func brc20Operations(q query) ([]Brc20Operation, error) {
	ops := q["operation"]
	if len(ops) == 0 {
		return nil, nil
	}
	out := make([]Brc20Operation, len(ops))
	for i, op := range ops {
		switch op {
		case "deploy", "mint", "transfer", "transfer_send":
			out[i] = Brc20Operation(strings.ToUpper(op))
		default:
			return nil, schemaError("querystring/operation/%d must be equal to one of the allowed values", i)
		}
	}
	return out, nil
}

// brc20Activity is an operation as the reference shows it: the common members, then one object
// named after the operation with its figures.
type brc20Activity struct {
	Operation     string             `json:"operation"`
	Ticker        string             `json:"ticker"`
	InscriptionID string             `json:"inscription_id"`
	BlockHeight   int                `json:"block_height"`
	BlockHash     string             `json:"block_hash"`
	TxID          string             `json:"tx_id"`
	Location      string             `json:"location"`
	Address       string             `json:"address"`
	Timestamp     int                `json:"timestamp"`
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

func (p brc20ActivityRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Brc20Activity(ctx, c, p.tickers, p.operations, p.address, p.blockHeight, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	activity := d.Brc20Activity
	results := make([]brc20Activity, len(activity.Results))
	for i, r := range activity.Results {
		results[i] = newBrc20Activity(r)
	}
	body, err := marshal(brc20PageOf(p.brc20Paging, activity.Total, results))
	return body, "", err
}

func newBrc20Activity(r Brc20ActivityBrc20ActivityBrc20ActivityConnectionResultsBrc20Activity) brc20Activity {
	a := brc20Activity{
		Operation: strings.ToLower(string(r.Operation)), Ticker: r.Ticker, InscriptionID: r.Inscription_id,
		BlockHeight: r.Block_height, BlockHash: r.Block_hash, TxID: r.Tx_id, Location: r.Location, Address: r.Address, Timestamp: r.Timestamp,
	}
	switch r.Operation {
	case Brc20OperationDeploy:
		a.Deploy = &brc20Deploy{r.Max_supply, r.Mint_limit, r.Decimals}
	case Brc20OperationMint:
		a.Mint = &brc20Mint{r.Amount}
	case Brc20OperationTransfer:
		a.Transfer = &brc20Transfer{r.Amount, r.From_address}
	case Brc20OperationTransferSend:
		a.TransferSend = &brc20TransferSend{r.Amount, r.From_address, r.To_address}
	}
	return a
}
