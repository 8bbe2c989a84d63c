package rest

import (
	"context"
	"encoding/hex"
	"net/http"
	"regexp"
	"slices"
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
				return balanceTag(ctx, c, mux.Vars(r)["principal"])
			},
		},
		{
			// The mined transactions and an ETag without the pending ones: a mempool change
			// leaves the answer as it was.
			path: "/extended/v1/address/{principal}/transactions_with_transfers", deprecated: true, reads: respcache.Chain,
			parse: transfersParams,
			pathTag: func(ctx context.Context, c genql.Client, r *http.Request) (string, error) {
				return activityTag(ctx, c, mux.Vars(r)["principal"])
			},
		},
		{
			path: "/extended/v1/tx/multiple", reads: respcache.Chain | respcache.Mempool, parse: multipleParams,
			pathTag: func(ctx context.Context, c genql.Client, _ *http.Request) (string, error) { return mempoolETag(ctx, c) },
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
