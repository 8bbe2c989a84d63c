package rest

import (
	"context"
	"encoding/hex"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	genql "github.com/Khan/genqlient/graphql"
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
		{path: "/extended/v2/blocks", reads: respcache.Chain, parse: parseV2Blocks, pathTag: tipPathTag},
		{
			path: "/extended/v2/blocks/average-times", reads: respcache.Chain,
			parse: func(*http.Request) (read, error) { return averageTimesRead{}, nil },
		},
		{path: "/extended/v2/blocks/{height_or_hash}", reads: respcache.Chain, parse: parseV2Block},
		{path: "/extended/v2/blocks/{height_or_hash}/transactions", reads: respcache.Chain, parse: v2BlockTxsParams},
		{path: "/extended/v2/blocks/{height_or_hash}/signer-signatures", reads: respcache.Chain, parse: parseSignerSignatures},
		{path: "/extended/v2/block-tenures/{tenure_height}/blocks", reads: respcache.Chain, parse: parseTenureBlocks},
		{path: "/extended/v2/burn-blocks", reads: respcache.Chain, parse: parseV2BurnBlocks, pathTag: tipPathTag},
		{path: "/extended/v2/burn-blocks/{height_or_hash}", reads: respcache.Chain, parse: parseV2BurnBlock, pathTag: tipPathTag},
		{path: "/extended/v2/burn-blocks/{height_or_hash}/blocks", reads: respcache.Chain, parse: parseBurnBlockBlocks, pathTag: tipPathTag},
	}
}

var hash64 = regexp.MustCompile(`^(0x)?[a-fA-F0-9]{64}$`)

// blockID is the block a height_or_hash path parameter names: the tip (latest), a height or a
// hash.
type blockID struct {
	latest bool
	blockRef
}

// parseHeightOrHash reads the height_or_hash path parameter. The reference's schema takes
// "latest", a 64-digit hex hash with or without 0x, or else any text that JavaScript reads as an
// integral number ("0x12" is 18, "1e1" is 10); its handler then fails on negative or huge
// heights, and its database on heights beyond its integer column.
func parseHeightOrHash(r *http.Request) (blockID, error) {
	v := mux.Vars(r)["height_or_hash"]
	if v == "latest" {
		return blockID{latest: true}, nil
	}
	if hash64.MatchString(v) {
		b, _ := hex.DecodeString(strings.TrimPrefix(v, "0x"))
		hash := "0x" + hex.EncodeToString(b)
		return blockID{blockRef: blockRef{hash: &hash}}, nil
	}
	f, ok := jsInteger(v)
	switch {
	case !ok:
		return blockID{}, schemaError(`params/height_or_hash must be equal to constant, ` +
			`params/height_or_hash must match pattern "^(0x)?[a-fA-F0-9]{64}$", ` +
			`params/height_or_hash must be integer, params/height_or_hash must match a schema in anyOf`)
	case f < 0 || f >= 1e21 || math.IsInf(f, 0):
		return blockID{}, badRequest("Invalid block height or hash")
	case f > math.MaxInt32:
		return blockID{}, outOfRange(f)
	}
	height := int(f)
	return blockID{blockRef: blockRef{height: &height}}, nil
}

// tagFrom is "<index block hash>:<canonical>" of the block id names the way the reference names
// it for caching: by index block hash only (a block hash gets no ETag), by canonical height, or
// the tip (tip is its index block hash; tag the block the operation found, if any).
func (id blockID) tagFrom(tip string, tag *V2BlockTagFieldsTagBlock) string {
	switch {
	case id.latest:
		if tip == "0x" {
			return ""
		}
		return tip + ":true"
	case tag == nil:
		return ""
	case id.hash != nil && *id.hash != tag.IndexBlockHash:
		return ""
	}
	return tag.IndexBlockHash + ":" + strconv.FormatBool(tag.Canonical)
}

// readTag reads the block's ETag alone.
func (id blockID) readTag(ctx context.Context, c genql.Client) (string, error) {
	d, err := V2BlockTag(ctx, c, id.latest, id.height, id.hash)
	if err != nil {
		return "", err
	}
	return id.tagFrom(d.Tip.IndexBlockHash, d.Tag), nil
}

// outOfRange is the reference database's message for a number beyond its integer columns.
func outOfRange(f float64) error {
	return badRequest(`value "%s" is out of range for type integer`, strconv.FormatFloat(f, 'f', -1, 64))
}

// keptPage reads a page: its limit kept as given (see keptLimit) and its offset.
func keptPage(r *http.Request, def, max int) (limit, offset int, err error) {
	q := query(r.URL.Query())
	if limit, err = q.keptLimit("limit", def, max); err != nil {
		return 0, 0, err
	}
	offset, err = q.offset("offset")
	return limit, offset, err
}

// nakamotoBlockBody is the reference's /extended/v2 block, its execution cost flattened.
type nakamotoBlockBody struct {
	Canonical                bool   `json:"canonical"`
	Height                   int    `json:"height"`
	Hash                     string `json:"hash"`
	BlockTime                int    `json:"block_time"`
	BlockTimeISO             string `json:"block_time_iso"`
	TenureHeight             int    `json:"tenure_height"`
	IndexBlockHash           string `json:"index_block_hash"`
	ParentBlockHash          string `json:"parent_block_hash"`
	ParentIndexBlockHash     string `json:"parent_index_block_hash"`
	BurnBlockTime            int    `json:"burn_block_time"`
	BurnBlockTimeISO         string `json:"burn_block_time_iso"`
	BurnBlockHash            string `json:"burn_block_hash"`
	BurnBlockHeight          int    `json:"burn_block_height"`
	MinerTxID                string `json:"miner_txid"`
	TxCount                  int    `json:"tx_count"`
	ExecutionCostReadCount   int    `json:"execution_cost_read_count"`
	ExecutionCostReadLength  int    `json:"execution_cost_read_length"`
	ExecutionCostRuntime     int    `json:"execution_cost_runtime"`
	ExecutionCostWriteCount  int    `json:"execution_cost_write_count"`
	ExecutionCostWriteLength int    `json:"execution_cost_write_length"`
}

func newNakamotoBlockBody(b *NakamotoBlockFields) nakamotoBlockBody {
	cost := &b.Execution_cost
	return nakamotoBlockBody{
		Canonical: b.Canonical, Height: b.Height, Hash: b.Hash,
		BlockTime: b.Block_time, BlockTimeISO: b.Block_time_iso, TenureHeight: b.Tenure_height,
		IndexBlockHash: b.Index_block_hash, ParentBlockHash: b.Parent_block_hash, ParentIndexBlockHash: b.Parent_index_block_hash,
		BurnBlockTime: b.Burn_block_time, BurnBlockTimeISO: b.Burn_block_time_iso, BurnBlockHash: b.Burn_block_hash, BurnBlockHeight: b.Burn_block_height,
		MinerTxID: b.Miner_txid, TxCount: b.Tx_count,
		ExecutionCostReadCount: cost.Read_count, ExecutionCostReadLength: cost.Read_length, ExecutionCostRuntime: cost.Runtime,
		ExecutionCostWriteCount: cost.Write_count, ExecutionCostWriteLength: cost.Write_length,
	}
}

func nakamotoBlocks(blocks []NakamotoBlockFields) []nakamotoBlockBody {
	out := make([]nakamotoBlockBody, len(blocks))
	for i := range blocks {
		out[i] = newNakamotoBlockBody(&blocks[i])
	}
	return out
}

// cursorPageRead is a read of a page of blocks from a cursor (the tip when none), moved by
// offset pages either way, optionally within one tenure.
type cursorPageRead struct {
	cursor        *string
	offset, limit int
	tenure        *int
}

var cursorPattern = regexp.MustCompile(`^0x[a-fA-F0-9]{64}$`)

// parseCursorPage reads the cursor, the offset from it (either way) and the page size.
func parseCursorPage(r *http.Request) (cursorPageRead, error) {
	q := query(r.URL.Query())
	var p cursorPageRead
	var err error
	if p.limit, err = q.limit("limit", blockLimit, resolvers.MaxBlocksPage); err != nil {
		return p, err
	}
	if p.offset, err = q.signedOffset("offset", cursorOffsetMax); err != nil {
		return p, err
	}
	if c, ok := q["cursor"]; ok {
		if !cursorPattern.MatchString(c[0]) {
			return p, schemaError(`querystring/cursor must match pattern "^0x[a-fA-F0-9]{64}$"`)
		}
		cursor := strings.ToLower(c[0])
		p.cursor = &cursor
	}
	return p, nil
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

// cursorPageBody is a cursor page: the page's position as asked, then the cursors around it.
type cursorPageBody struct {
	Limit      int                 `json:"limit"`
	Offset     int                 `json:"offset"`
	Total      int                 `json:"total"`
	NextCursor *string             `json:"next_cursor"`
	PrevCursor *string             `json:"prev_cursor"`
	Cursor     *string             `json:"cursor"`
	Results    []nakamotoBlockBody `json:"results"`
}

// answer renders the page and the tip's ETag; a cursor that names no block of the list is not
// found.
func (p cursorPageRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2Blocks(ctx, c, p.cursor, p.offset, p.limit, p.tenure)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	pg := &d.Page
	if p.cursor != nil && pg.Cursor == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Cursor not found")
	}
	body, err := marshal(cursorPageBody{
		Limit: p.limit, Offset: p.offset, Total: pg.Total,
		NextCursor: pg.Next_cursor, PrevCursor: pg.Prev_cursor, Cursor: pg.Cursor,
		Results: nakamotoBlocks(pg.Results),
	})
	return body, tag, err
}

// v2BlocksRead is a read of GET /extended/v2/blocks, which follows the tip.
type v2BlocksRead struct{ cursorPageRead }

func parseV2Blocks(r *http.Request) (read, error) {
	p, err := parseCursorPage(r)
	return v2BlocksRead{p}, err
}

func (p v2BlocksRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

// tenureBlocksRead is a read of a tenure's blocks, which carries no ETag.
type tenureBlocksRead struct{ cursorPageRead }

// parseTenureBlocks reads the tenure and the cursor page; the reference lists the whole chain
// for tenure 0, which it takes for no tenure.
func parseTenureBlocks(r *http.Request) (read, error) {
	t, ok := jsInteger(mux.Vars(r)["tenure_height"])
	switch {
	case !ok:
		return nil, schemaError("params/tenure_height must be integer")
	case t < 0:
		return nil, schemaError("params/tenure_height must be >= 0")
	case t > math.MaxInt32:
		return nil, outOfRange(t)
	}
	p, err := parseCursorPage(r)
	if t > 0 {
		tenure := int(t)
		p.tenure = &tenure
	}
	return tenureBlocksRead{p}, err
}

func (p tenureBlocksRead) etag(context.Context, genql.Client) (string, error) { return "", nil }

func (p tenureBlocksRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	body, _, err := p.cursorPageRead.answer(ctx, c)
	return body, "", err
}

// averageTimesRead is a read of GET /extended/v2/blocks/average-times.
type averageTimesRead struct{}

type averageTimesBody struct {
	Last1h  float64 `json:"last_1h"`
	Last24h float64 `json:"last_24h"`
	Last7d  float64 `json:"last_7d"`
	Last30d float64 `json:"last_30d"`
}

func (averageTimesRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (averageTimesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2AverageBlockTimes(ctx, c)
	if err != nil {
		return nil, "", err
	}
	t := &d.Times
	body, err := marshal(averageTimesBody{t.Last_1h, t.Last_24h, t.Last_7d, t.Last_30d})
	return body, tipFieldsTag(&d.Tip), err
}

// v2BlockRead is a read of GET /extended/v2/blocks/{height_or_hash}.
type v2BlockRead struct{ blockID }

func parseV2Block(r *http.Request) (read, error) {
	id, err := parseHeightOrHash(r)
	return v2BlockRead{id}, err
}

func (p v2BlockRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return p.readTag(ctx, c)
}

func (p v2BlockRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2Block(ctx, c, p.latest, p.height, p.hash)
	if err != nil {
		return nil, "", err
	}
	tag := p.tagFrom(d.Tip.IndexBlockHash, d.Tag)
	if d.Block == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Block not found")
	}
	body, err := marshal(newNakamotoBlockBody(d.Block))
	return body, tag, err
}

// signerSignaturesRead is a read of a page of a block's signer signatures.
type signerSignaturesRead struct {
	blockID
	limit, offset int
}

func parseSignerSignatures(r *http.Request) (read, error) {
	id, err := parseHeightOrHash(r)
	if err != nil {
		return nil, err
	}
	p := signerSignaturesRead{blockID: id}
	p.limit, p.offset, err = keptPage(r, signerSigLimit, signerSigMax)
	return p, err
}

func (p signerSignaturesRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return p.readTag(ctx, c)
}

// answer renders the page; an unknown block has no signatures.
func (p signerSignaturesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2BlockSignerSignatures(ctx, c, p.latest, p.height, p.hash, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	results, total := []string{}, 0
	if b := d.Block; b != nil {
		results, total = b.Results, b.Total
	}
	body, err := marshal(page[string]{Limit: p.limit, Offset: p.offset, Total: &total, Results: results})
	return body, p.tagFrom(d.Tip.IndexBlockHash, d.Tag), err
}

// burnBlockBody is the reference's burn block with the Stacks blocks it anchors.
type burnBlockBody struct {
	BurnBlockTime    int      `json:"burn_block_time"`
	BurnBlockTimeISO string   `json:"burn_block_time_iso"`
	BurnBlockHash    string   `json:"burn_block_hash"`
	BurnBlockHeight  int      `json:"burn_block_height"`
	StacksBlocks     []string `json:"stacks_blocks"`
	AvgBlockTime     int      `json:"avg_block_time"`
	TotalTxCount     int      `json:"total_tx_count"`
}

// newBurnBlockBody renders b. The reference's schema types the average as an integer, which its
// serializer writes truncated (of the average it rounded to two decimals).
func newBurnBlockBody(b *BurnBlockSummaryFields) burnBlockBody {
	return burnBlockBody{
		BurnBlockTime: b.Burn_block_time, BurnBlockTimeISO: b.Burn_block_time_iso,
		BurnBlockHash: b.Burn_block_hash, BurnBlockHeight: b.Burn_block_height,
		StacksBlocks: b.Stacks_blocks, AvgBlockTime: int(b.Avg_block_time), TotalTxCount: b.Total_tx_count,
	}
}

// v2BurnBlocksRead is a read of GET /extended/v2/burn-blocks.
type v2BurnBlocksRead struct{ limit, offset int }

func parseV2BurnBlocks(r *http.Request) (read, error) {
	var p v2BurnBlocksRead
	var err error
	p.limit, p.offset, err = keptPage(r, blockLimit, resolvers.MaxBlocksPage)
	return p, err
}

func (p v2BurnBlocksRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p v2BurnBlocksRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2BurnBlocks(ctx, c, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	results := make([]burnBlockBody, len(d.Page.Results))
	for i := range d.Page.Results {
		results[i] = newBurnBlockBody(&d.Page.Results[i])
	}
	body, err := marshal(page[burnBlockBody]{Limit: p.limit, Offset: p.offset, Total: &d.Page.Total, Results: results})
	return body, tipFieldsTag(&d.Tip), err
}

// v2BurnBlockRead is a read of GET /extended/v2/burn-blocks/{height_or_hash}.
type v2BurnBlockRead struct{ blockID }

func parseV2BurnBlock(r *http.Request) (read, error) {
	id, err := parseHeightOrHash(r)
	return v2BurnBlockRead{id}, err
}

func (p v2BurnBlockRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p v2BurnBlockRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2BurnBlock(ctx, c, p.latest, p.height, p.hash)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if d.BurnBlock == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	body, err := marshal(newBurnBlockBody(d.BurnBlock))
	return body, tag, err
}

// burnBlockBlocksRead is a read of a page of the Stacks blocks a burn block anchors.
type burnBlockBlocksRead struct {
	blockID
	limit, offset int
}

func parseBurnBlockBlocks(r *http.Request) (read, error) {
	id, err := parseHeightOrHash(r)
	if err != nil {
		return nil, err
	}
	p := burnBlockBlocksRead{blockID: id}
	p.limit, p.offset, err = keptPage(r, blockLimit, resolvers.MaxBlocksPage)
	return p, err
}

func (p burnBlockBlocksRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p burnBlockBlocksRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := V2BurnBlockBlocks(ctx, c, p.latest, p.height, p.hash, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if d.Page == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Burn block not found")
	}
	body, err := marshal(page[nakamotoBlockBody]{
		Limit: p.limit, Offset: p.offset, Total: &d.Page.Total,
		Results: nakamotoBlocks(d.Page.Results),
	})
	return body, tag, err
}
