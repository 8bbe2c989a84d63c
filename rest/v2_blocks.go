package rest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
)

// Page sizes (default, maximum) of the /extended/v2 block reads that the reference does not share
// with /extended/v1, and how far a cursor page may move from its cursor (ten pages).
const (
	signerSigLimit, signerSigMax = 500, 1000
	cursorOffsetMax              = 10 * resolvers.MaxBlocksPage
)

// v2BlockRoutes are the block reads of /extended/v2. The routes of one block carry the reference's
// block ETag; the tenure route carries none, as the reference's block ETag cannot read a tenure.
func v2BlockRoutes() []route {
	return []route{
		{
			path: "/extended/v2/blocks", op: "V2Blocks", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: v2BlocksParams,
			etag:   chainTipETag,
			body:   cursorPageBody,
		},
		{
			path: "/extended/v2/blocks/average-times", op: "V2AverageBlockTimes", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: noParams,
			etag:   chainTipETag,
			body: func(_ map[string]any, d json.RawMessage) ([]byte, error) {
				return reshape(pick(d, "times"))
			},
		},
		{
			path: "/extended/v2/blocks/{height_or_hash}", op: "V2Block", tagOp: "V2BlockTag", reads: respcache.Chain,
			params:  heightOrHash,
			etagFor: blockETag,
			body:    v2BlockBody,
		},
		{path: "/extended/v2/blocks/{height_or_hash}/transactions", reads: respcache.Chain, parse: v2BlockTxsParams},
		{
			path: "/extended/v2/blocks/{height_or_hash}/signer-signatures", op: "V2BlockSignerSignatures", tagOp: "V2BlockTag", reads: respcache.Chain,
			params:  blockPageParams(signerSigLimit, signerSigMax),
			etagFor: blockETag,
			body:    signerSignaturesBody,
		},
		{
			path: "/extended/v2/block-tenures/{tenure_height}/blocks", op: "V2Blocks", reads: respcache.Chain,
			params: tenureBlocksParams,
			body:   cursorPageBody,
		},
		{
			path: "/extended/v2/burn-blocks", op: "V2BurnBlocks", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: burnBlocksParams,
			etag:   chainTipETag,
			body:   burnBlocksBody,
		},
		{
			path: "/extended/v2/burn-blocks/{height_or_hash}", op: "V2BurnBlock", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: heightOrHash,
			etag:   chainTipETag,
			body:   v2BurnBlockBody,
		},
		{
			path: "/extended/v2/burn-blocks/{height_or_hash}/blocks", op: "V2BurnBlockBlocks", tagOp: "ChainTipTag", reads: respcache.Chain,
			params: blockPageParams(blockLimit, resolvers.MaxBlocksPage),
			etag:   chainTipETag,
			body:   burnBlockBlocksBody,
		},
	}
}

func noParams(*http.Request) (map[string]any, error) { return map[string]any{}, nil }

var hash64 = regexp.MustCompile(`^(0x)?[a-fA-F0-9]{64}$`)

// heightOrHash reads the height_or_hash path parameter into vars: latest, height or hash. The
// reference's schema takes "latest", a 64-digit hex hash with or without 0x, or else any text
// that JavaScript reads as an integral number ("0x12" is 18, "1e1" is 10); its handler then fails
// on negative or huge heights, and its database on heights beyond its integer column.
func heightOrHash(r *http.Request) (map[string]any, error) {
	v := mux.Vars(r)["height_or_hash"]
	vars := map[string]any{"latest": v == "latest"}
	if v == "latest" {
		return vars, nil
	}
	if hash64.MatchString(v) {
		b, _ := hex.DecodeString(strings.TrimPrefix(v, "0x"))
		vars["hash"] = "0x" + hex.EncodeToString(b)
		return vars, nil
	}
	f, ok := jsInteger(v)
	switch {
	case !ok:
		return nil, schemaError(`params/height_or_hash must be equal to constant, ` +
			`params/height_or_hash must match pattern "^(0x)?[a-fA-F0-9]{64}$", ` +
			`params/height_or_hash must be integer, params/height_or_hash must match a schema in anyOf`)
	case f < 0 || f >= 1e21 || math.IsInf(f, 0):
		return nil, badRequest("Invalid block height or hash")
	case f > math.MaxInt32:
		return nil, outOfRange(f)
	}
	vars["height"] = int(f)
	return vars, nil
}

// outOfRange is the reference database's message for a number beyond its integer columns.
func outOfRange(f float64) error {
	return badRequest(`value "%s" is out of range for type integer`, strconv.FormatFloat(f, 'f', -1, 64))
}

// pageOf adds limit (kept as given, see keptLimit) and offset to vars.
func pageOf(r *http.Request, vars map[string]any, def, max int) (map[string]any, error) {
	q := query(r.URL.Query())
	var err error
	if vars["limit"], err = q.keptLimit("limit", def, max); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.offset("offset"); err != nil {
		return nil, err
	}
	return vars, nil
}

// blockPageParams reads a block and a page of its items.
func blockPageParams(def, max int) func(*http.Request) (map[string]any, error) {
	return func(r *http.Request) (map[string]any, error) {
		vars, err := heightOrHash(r)
		if err != nil {
			return nil, err
		}
		return pageOf(r, vars, def, max)
	}
}

func burnBlocksParams(r *http.Request) (map[string]any, error) {
	return pageOf(r, map[string]any{}, blockLimit, resolvers.MaxBlocksPage)
}

var cursorPattern = regexp.MustCompile(`^0x[a-fA-F0-9]{64}$`)

// cursorPageParams reads the cursor, the offset from it (either way) and the page size.
func cursorPageParams(r *http.Request, vars map[string]any) (map[string]any, error) {
	q := query(r.URL.Query())
	var err error
	if vars["limit"], err = q.limit("limit", blockLimit, resolvers.MaxBlocksPage); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.signedOffset("offset", cursorOffsetMax); err != nil {
		return nil, err
	}
	if c, ok := q["cursor"]; ok {
		if !cursorPattern.MatchString(c[0]) {
			return nil, schemaError(`querystring/cursor must match pattern "^0x[a-fA-F0-9]{64}$"`)
		}
		vars["cursor"] = strings.ToLower(c[0])
	}
	return vars, nil
}

// signedOffset parses an offset that may be negative, within ±max (default 0).
func (q query) signedOffset(name string, max int) (int, error) {
	vs, ok := q[name]
	if !ok {
		return 0, nil
	}
	n, ok := jsInteger(vs[0])
	switch {
	case !ok:
		return 0, schemaError("querystring/%s must be integer", name)
	case n > float64(max):
		return 0, schemaError("querystring/%s must be <= %d", name, max)
	case n < float64(-max):
		return 0, schemaError("querystring/%s must be >= %d", name, -max)
	}
	return int(n), nil
}

func v2BlocksParams(r *http.Request) (map[string]any, error) {
	return cursorPageParams(r, map[string]any{})
}

// tenureBlocksParams reads the tenure; the reference lists the whole chain for tenure 0, which it
// takes for no tenure.
func tenureBlocksParams(r *http.Request) (map[string]any, error) {
	t, ok := jsInteger(mux.Vars(r)["tenure_height"])
	switch {
	case !ok:
		return nil, schemaError("params/tenure_height must be integer")
	case t < 0:
		return nil, schemaError("params/tenure_height must be >= 0")
	case t > math.MaxInt32:
		return nil, outOfRange(t)
	}
	vars := map[string]any{}
	if t > 0 {
		vars["tenureHeight"] = int(t)
	}
	return cursorPageParams(r, vars)
}

// cursorPageBody renders a cursor page; a cursor that names no block of the list is not found.
func cursorPageBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	page := pick(data, "page")
	if _, asked := vars["cursor"]; asked && string(pick(page, "cursor")) == "null" {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Cursor not found")
	}
	members, err := reshape(page)
	if err != nil {
		return nil, err
	}
	// {"limit","offset", then the page's own members}.
	head := `{"limit":` + strconv.Itoa(vars["limit"].(int)) + `,"offset":` + strconv.Itoa(vars["offset"].(int)) + `,`
	return append([]byte(head), members[1:]...), nil
}

// found reports whether the value at path is present and not null.
func found(data []byte, path ...string) bool { return !isNull(pick(data, path...)) }

func v2BlockBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	if !found(data, "block") {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Block not found")
	}
	return reshape(pick(data, "block"))
}

// signerSignaturesBody renders a page of the block's signer signatures; an unknown block has
// none.
func signerSignaturesBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	if !found(data, "block") {
		zero := 0
		return wrapPage(vars, "results", []byte("[]"), &zero), nil
	}
	return totalPage(vars, pick(data, "block"))
}

func burnBlocksBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	return totalPage(vars, pick(data, "page"))
}

func v2BurnBlockBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	if !found(data, "burnBlock") {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	return reshape(pick(data, "burnBlock"))
}

func burnBlockBlocksBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	if !found(data, "page") {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Burn block not found")
	}
	return totalPage(vars, pick(data, "page"))
}

// blockTag is the ETag input of one block's routes: the block an index block hash or a height
// names, or the tip.
type blockTag struct {
	Tip struct {
		IndexBlockHash string `json:"indexBlockHash"`
	} `json:"tip"`
	Tag *struct {
		IndexBlockHash string `json:"indexBlockHash"`
		Canonical      bool   `json:"canonical"`
	} `json:"tag"`
}

// blockETag is "<index block hash>:<canonical>" of the block the request names the way the
// reference names it for caching: by index block hash only (a block hash gets no ETag), by
// canonical height, or the tip.
func blockETag(vars map[string]any, data json.RawMessage) string {
	var t blockTag
	if json.Unmarshal(data, &t) != nil {
		return ""
	}
	switch {
	case vars["latest"] == true:
		if t.Tip.IndexBlockHash == "0x" {
			return ""
		}
		return t.Tip.IndexBlockHash + ":true"
	case t.Tag == nil:
		return ""
	case vars["hash"] != nil && vars["hash"] != t.Tag.IndexBlockHash:
		return ""
	}
	return t.Tag.IndexBlockHash + ":" + strconv.FormatBool(t.Tag.Canonical)
}

func init() {
	// The reference's burn block schema types the average as an integer, which its serializer
	// writes truncated (of the average it rounded to two decimals).
	rules["avg_block_time"] = truncate
}

// truncate writes a JSON number without its fraction.
func truncate(dst, key, value []byte) []byte {
	if i := bytes.IndexByte(value, '.'); i >= 0 && !bytes.ContainsAny(value, "eE") {
		value = value[:i]
	}
	return member(dst, key, value)
}
