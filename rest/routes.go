package rest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	genql "github.com/Khan/genqlient/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
)

// Default page sizes of the reference's listings (the maxima are the resolvers').
const (
	blockLimit    = 20
	txLimit       = 20
	eventLimit    = 20
	contractLimit = 20
)

func (a *API) routes() []route {
	return append([]route{
		{
			path: "/extended/v1/address/{principal}/stx", reads: respcache.Chain | respcache.Mempool,
			parse: func(r *http.Request) (read, error) { return stxBalanceParams(r) },
			pathTag: func(ctx context.Context, c genql.Client, r *http.Request) (string, error) {
				return addressTag(ctx, c, mux.Vars(r)["principal"], true)
			},
		},
		{
			path: "/extended/v1/address/{principal}/transactions_with_transfers", deprecated: true,
			op: "AccountTransactionsWithTransfers", tagOp: "AccountTag", reads: respcache.Chain | respcache.Mempool,
			params: transfersParams,
			etag:   func(d json.RawMessage) string { return accountTag(d).etag(false) },
			body:   transfersBody,
		},
		{
			path: "/extended/v1/tx/multiple", op: "TransactionsByIds", tagOp: "MempoolTag", reads: respcache.Chain | respcache.Mempool,
			params: multipleParams,
			etag:   func(d json.RawMessage) string { return decodeTag[mempoolTag](d, "tip").etag() },
			body:   multipleBody,
		},
		{path: "/extended/v1/tx/events", reads: respcache.Chain, parse: eventsParams, pathTag: tipPathTag},
		{path: "/extended/v1/contract/{contract_id}/events", reads: respcache.Chain, parse: contractEventsParams, pathTag: tipPathTag},
		{path: "/extended/v1/block", deprecated: true, reads: respcache.Chain, parse: parseBlocks, pathTag: tipPathTag},
		{
			path: "/extended/v1/block/by_burn_block_hash/{hash}", deprecated: true, reads: respcache.Chain,
			redirect: burnHashRedirect, parse: parseBurnBlock, pathTag: tipPathTag,
		},
	}, slices.Concat(brc20Routes(), v2BalanceRoutes(), poxRoutes(), v2AddressRoutes(), v2BlockRoutes())...)
}

// decodeTag decodes the ETag inputs at path in an operation's data. Tag fields come from our own
// operations; missing ones mean "no ETag".
func decodeTag[T any](data json.RawMessage, path ...string) T {
	var t T
	json.Unmarshal(pick(data, path...), &t) //nolint:errcheck // see above
	return t
}

func chainTipETag(d json.RawMessage) string { return decodeTag[chainTipTag](d, "tip").etag() }

// accountTag reads the address routes' ETag inputs in one pass over the account's members,
// which stops before the page after them.
func accountTag(d json.RawMessage) principalTag {
	var t principalTag
	found := 0
	for k, v := range members(pick(d, "account")) {
		switch string(k) {
		case "latestTxId":
			t.LatestTxID = tagString(v)
		case "latestMempoolTxId":
			t.LatestMempoolTxID = tagString(v)
		case "balance":
			t.Balance = balanceLockTag(v)
		default:
			continue
		}
		if found++; found == 3 {
			break
		}
	}
	return t
}

func balanceLockTag(balance []byte) lockTag {
	var t lockTag
	for k, v := range members(balance) {
		switch string(k) {
		case "locked":
			if s := tagString(v); s != nil {
				t.Locked = *s
			}
		case "burnchain_unlock_height":
			t.BurnchainUnlockHeight, _ = strconv.Atoi(string(v))
		}
	}
	return t
}

// tagString is the JSON string v, or nil when v is null or no string.
func tagString(v []byte) *string {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	if bytes.IndexByte(v, '\\') < 0 { // ids and amounts: nothing to unescape
		s := string(v[1 : len(v)-1])
		return &s
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil
	}
	return &s
}

// principalPrefix is the reference's request-schema pattern for a principal path parameter:
// without an end anchor, it only asks for a c32 prefix; the account query then checks the
// principal itself (400 invalid STX address).
var principalPrefix = regexp.MustCompile(`^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}`)

// principalSchemaError is the reference's message for a principal parameter (at field, e.g.
// "params/principal") without that prefix.
func principalSchemaError(field string) error {
	return schemaError(`%[1]s must match pattern "^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}", `+
		`%[1]s must match pattern "^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}$", `+
		`%[1]s must match a schema in anyOf`, field)
}

// accountParams are the address routes' parameters: the principal and the state read.
type accountParams struct {
	principal  string
	unanchored bool
	// until is the until_block parameter.
	until blockRef
}

// balanceParams reads the address routes' parameters.
func balanceParams(r *http.Request) (accountParams, error) {
	p := accountParams{principal: mux.Vars(r)["principal"]}
	if !principalPrefix.MatchString(p.principal) {
		return p, principalSchemaError("params/principal")
	}
	q := query(r.URL.Query())
	var err error
	if p.unanchored, err = q.boolean("unanchored"); err != nil {
		return p, err
	}
	p.until, err = untilBlock(q, p.unanchored)
	return p, err
}

// vars are the parameters as the reshaped routes' variables.
func (p accountParams) vars() map[string]any {
	vars := map[string]any{"principal": p.principal, "unanchored": p.unanchored}
	if p.until.height != nil {
		vars["atHeight"] = *p.until.height
	}
	if p.until.hash != nil {
		vars["atBlockHash"] = *p.until.hash
	}
	return vars
}

func transfersParams(r *http.Request) (map[string]any, error) {
	p, err := balanceParams(r)
	if err != nil {
		return nil, err
	}
	vars := p.vars()
	q := query(r.URL.Query())
	if vars["limit"], err = q.limit("limit", txLimit, resolvers.MaxAccountTxsPage); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.offset("offset"); err != nil {
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
		vars["height"] = height
	}
	return vars, nil
}

func transfersBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	return totalPage(vars, pick(data, "account", "page"))
}

// totalPage renders {limit, offset, total, results} from a page object with total and results.
func totalPage(vars map[string]any, page []byte) ([]byte, error) {
	total, err := intAt(page, "total")
	if err != nil {
		return nil, err
	}
	results, err := reshape(pick(page, "results"))
	if err != nil {
		return nil, err
	}
	return wrapPage(vars, "results", results, &total), nil
}

// intAt reads the integer at path.
func intAt(data []byte, path ...string) (int, error) {
	v := pick(data, path...)
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0, fmt.Errorf("%s: not an integer: %q", strings.Join(path, "."), v)
	}
	return n, nil
}

// wrapPage renders {"limit","offset"[,"total"],"<key>":results}.
func wrapPage(vars map[string]any, key string, results []byte, total *int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"limit":` + strconv.Itoa(vars["limit"].(int)) + `,"offset":` + strconv.Itoa(vars["offset"].(int)))
	if total != nil {
		b.WriteString(`,"total":` + strconv.Itoa(*total))
	}
	b.WriteString(`,"` + key + `":`)
	b.Write(results)
	b.WriteByte('}')
	return b.Bytes()
}

func multipleParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	raw := q["tx_id"]
	if len(raw) == 1 && strings.Contains(raw[0], ",") {
		raw = strings.Split(raw[0], ",")
	}
	if len(raw) == 0 {
		return nil, schemaError("querystring must have required property 'tx_id'")
	}
	ids := make([]string, len(raw))
	respelled := []string{}
	for i, id := range raw {
		if err := txID("tx_id/"+strconv.Itoa(i), id); err != nil {
			return nil, err
		}
		b, err := hexInput(id)
		if err != nil {
			return nil, err
		}
		ids[i] = "0x" + hex.EncodeToString(b)
		if ids[i] != id {
			respelled = append(respelled, ids[i])
		}
	}
	unanchored, err := q.boolean("unanchored")
	if err != nil {
		return nil, err
	}
	exclude, err := q.boolean("exclude_function_args")
	if err != nil {
		return nil, err
	}
	limit, err := q.limit("event_limit", eventLimit, resolvers.MaxEventLimit)
	if err != nil {
		return nil, err
	}
	offset, err := q.offset("event_offset")
	if err != nil {
		return nil, err
	}
	return map[string]any{"ids": ids, "respelled": respelled, "requested": raw, "unanchored": unanchored, "excludeFunctionArgs": exclude,
		"eventLimit": limit, "eventOffset": offset}, nil
}

// multipleBody renders the lookups as the reference's object keyed by transaction id. Found
// transactions are keyed by their id as stored (lower-case hex); an id is then listed as not
// found, keyed as requested, whenever it is not spelled exactly like a found one, so an id given
// in upper-case hex is answered twice: found under its lower-case key and not found under its own.
// The reference also looks such an id up in the mempool, and a mempool record found there (a
// mined transaction keeps one) replaces the mined transaction in the answer.
func multipleBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	var d struct {
		Lookups []struct {
			Found  bool            `json:"found"`
			Result json.RawMessage `json:"result"`
		} `json:"lookups"`
		Respelled []json.RawMessage `json:"respelled"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	mempoolRecord := map[string]json.RawMessage{}
	for _, m := range d.Respelled {
		var id struct {
			TxID string `json:"tx_id"`
		}
		if err := json.Unmarshal(m, &id); err != nil {
			return nil, err
		}
		mempoolRecord[id.TxID] = m
	}
	keys := map[string]bool{}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, l := range d.Lookups {
		if !l.Found {
			continue
		}
		var id struct {
			TxID string `json:"tx_id"`
		}
		if err := json.Unmarshal(l.Result, &id); err != nil {
			return nil, err
		}
		if keys[id.TxID] {
			continue
		}
		keys[id.TxID] = true
		if m, ok := mempoolRecord[id.TxID]; ok {
			l.Result = m
		}
		result, err := reshape(l.Result)
		if err != nil {
			return nil, err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(id.TxID) + `:{"found":true,"result":`)
		b.Write(result)
		b.WriteByte('}')
	}
	// Not found, in request order.
	for _, req := range vars["requested"].([]string) {
		if keys[req] {
			continue
		}
		keys[req] = true
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(req)
		b.Write(key)
		b.WriteString(`:{"found":false,"result":{"tx_id":`)
		b.Write(key)
		b.WriteString(`}}`)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func eventsParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	var p eventsRead
	id, addr := q.get("tx_id"), q.get("address")
	switch {
	case id == "" && addr == "":
		return nil, badRequest(resolvers.MsgNoAddressOrTxID)
	case id != "" && addr != "":
		return nil, badRequest(resolvers.MsgAddressAndTxID)
	case id != "":
		if err := txID("tx_id", id); err != nil {
			return nil, err
		}
		id = "0x" + strings.TrimPrefix(id, "0x")
		p.txID = &id
	case !principalPrefix.MatchString(addr):
		return nil, principalSchemaError("querystring/address")
	default:
		p.principal = &addr // validated by the events query
	}
	var err error
	if p.types, err = eventTypes(q); err != nil {
		return nil, err
	}
	if p.limit, err = q.limit("limit", eventLimit, resolvers.MaxEventsPage); err != nil {
		return nil, err
	}
	p.offset, err = q.offset("offset")
	return p, err
}

func contractEventsParams(r *http.Request) (read, error) {
	q := query(r.URL.Query())
	p := contractEventsRead{contractID: mux.Vars(r)["contract_id"]}
	var err error
	if p.unanchored, err = q.boolean("unanchored"); err != nil {
		return nil, err
	}
	if p.limit, err = q.limit("limit", contractLimit, resolvers.MaxContractEventsPage); err != nil {
		return nil, err
	}
	p.offset, err = q.offset("offset")
	return p, err
}

// burnHashRedirect sends a hash given without 0x to the 0x form.
func burnHashRedirect(r *http.Request) (string, bool) {
	h := mux.Vars(r)["hash"]
	if strings.HasPrefix(h, "0x") {
		return "", false
	}
	target := "/extended/v1/block/by_burn_block_hash/0x" + h
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	return target, true
}

// parseBurnBlock validates the hash; where the reference fails with a 500 on bad hex, this is a 400.
func parseBurnBlock(r *http.Request) (read, error) {
	b, err := hexInput(mux.Vars(r)["hash"])
	if err != nil {
		return nil, err
	}
	return burnBlockRead{hash: "0x" + hex.EncodeToString(b)}, nil
}
