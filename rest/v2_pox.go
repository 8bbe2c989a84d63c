package rest

import (
	"context"
	"encoding/hex"
	"math"
	"net/http"
	"strings"

	genql "github.com/Khan/genqlient/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/respcache"
)

// Page sizes (default, maximum) of the PoX cycle listings.
const (
	poxCycleLimit, poxCycleMax     = 20, 60
	poxSignerLimit, poxSignerMax   = 100, 250
	poxStackerLimit, poxStackerMax = 100, 200
)

// The reference's not-found messages of the signer paths (its plain not-found is "Not found").
const (
	poxCycleNotFound  = "PoX cycle not found"
	poxSignerNotFound = "PoX cycle signer not found"
)

// poxRoutes are the PoX cycles and their signers; every one follows the chain tip.
func poxRoutes() []route {
	const base = "/extended/v2/pox/cycles"
	r := func(path string, parse func(*http.Request) (read, error)) route {
		return route{path: base + path, reads: respcache.Chain, parse: parse, pathTag: tipPathTag}
	}
	return []route{
		r("", parsePoxCycles),
		r("/{cycle_number}", parsePoxCycle),
		r("/{cycle_number}/signers", parsePoxSigners),
		r("/{cycle_number}/signers/{signer_key}", parsePoxSigner),
		r("/{cycle_number}/signers/{signer_key}/stackers", parsePoxStackers),
	}
}

// parseCycle reads the cycle number path parameter: any spelling of an integral number that
// JavaScript's Number() reads (the reference's validator coerces it so: "14.0", "0xe" and " 14"
// are cycle 14); beyond 32 bits (where the reference's database fails) it is a 400.
func parseCycle(r *http.Request) (int, error) {
	f, ok := jsNumber(mux.Vars(r)["cycle_number"])
	switch {
	case !ok || math.IsInf(f, 0) || f != math.Trunc(f):
		return 0, schemaError("params/cycle_number must be integer")
	case f > math.MaxInt32:
		return 0, schemaError("params/cycle_number must be <= %d", math.MaxInt32)
	case f < math.MinInt32:
		return 0, schemaError("params/cycle_number must be >= %d", math.MinInt32)
	}
	return int(f), nil
}

// poxPage reads a page of limit/offset, limit 0 meaning the default.
func poxPage(r *http.Request, def, max int) (limit, offset int, err error) {
	q := query(r.URL.Query())
	if limit, err = q.limit("limit", def, max); err != nil {
		return 0, 0, err
	}
	offset, err = q.offset("offset")
	return limit, offset, err
}

// parseSigner reads the signing key, then the cycle. The key is hex with its 0x; malformed hex,
// where the reference fails in its database, is a 400.
func parseSigner(r *http.Request, key string) (cycle int, signer string, err error) {
	b, err := hexInput(key)
	if err != nil {
		return 0, "", err
	}
	cycle, err = parseCycle(r)
	return cycle, "0x" + hex.EncodeToString(b), err
}

// poxPageBody renders a page the way the reference does: its total comes with the page's rows,
// so an empty page (an offset past the end, or limit 0) has a total of 0.
func poxPageBody[T any](limit, offset, total int, results []T) ([]byte, error) {
	if len(results) == 0 {
		total = 0
	}
	return marshal(page[T]{Limit: limit, Offset: offset, Total: &total, Results: results})
}

// poxCycleBody is the reference's PoX cycle.
type poxCycleBody struct {
	BlockHeight        int    `json:"block_height"`
	IndexBlockHash     string `json:"index_block_hash"`
	CycleNumber        int    `json:"cycle_number"`
	TotalWeight        int    `json:"total_weight"`
	TotalStackedAmount string `json:"total_stacked_amount"`
	TotalSigners       int    `json:"total_signers"`
}

func newPoxCycleBody(c *PoxCycleFields) poxCycleBody {
	return poxCycleBody{c.Block_height, c.Index_block_hash, c.Cycle_number, c.Total_weight, c.Total_stacked_amount, c.Total_signers}
}

// poxSignerBody is the reference's signer of a cycle; its shares are JavaScript numbers, which
// encoding/json writes as JSON.stringify does.
type poxSignerBody struct {
	SigningKey           string  `json:"signing_key"`
	SignerAddress        string  `json:"signer_address"`
	Weight               int     `json:"weight"`
	StackedAmount        string  `json:"stacked_amount"`
	WeightPercent        float64 `json:"weight_percent"`
	StackedAmountPercent float64 `json:"stacked_amount_percent"`
	SoloStackerCount     int     `json:"solo_stacker_count"`
	PooledStackerCount   int     `json:"pooled_stacker_count"`
}

func newPoxSignerBody(s *PoxSignerFields) poxSignerBody {
	return poxSignerBody{
		s.Signing_key, s.Signer_address, s.Weight, s.Stacked_amount,
		s.Weight_percent, s.Stacked_amount_percent, s.Solo_stacker_count, s.Pooled_stacker_count,
	}
}

// poxStackerBody is a stacker of a signer. A stacking operation's reward address without a
// standard encoding is "", as the reference's serializer writes a missing string.
type poxStackerBody struct {
	StackerAddress string `json:"stacker_address"`
	StackedAmount  string `json:"stacked_amount"`
	PoxAddress     string `json:"pox_address"`
	StackerType    string `json:"stacker_type"`
}

// poxCyclesRead is a read of GET /extended/v2/pox/cycles.
type poxCyclesRead struct{ limit, offset int }

// parsePoxCycles reads the cycle list's page; a limit of 0 is an empty page.
func parsePoxCycles(r *http.Request) (read, error) {
	var p poxCyclesRead
	var err error
	p.limit, p.offset, err = keptPage(r, poxCycleLimit, poxCycleMax)
	return p, err
}

func (p poxCyclesRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p poxCyclesRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := PoxCycles(ctx, c, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	results := make([]poxCycleBody, len(d.Page.Results))
	for i := range d.Page.Results {
		results[i] = newPoxCycleBody(&d.Page.Results[i])
	}
	body, err := poxPageBody(p.limit, p.offset, d.Page.Total, results)
	return body, tipFieldsTag(&d.Tip), err
}

// poxCycleRead is a read of GET /extended/v2/pox/cycles/{cycle_number}.
type poxCycleRead struct{ cycle int }

func parsePoxCycle(r *http.Request) (read, error) {
	cycle, err := parseCycle(r)
	return poxCycleRead{cycle}, err
}

func (p poxCycleRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p poxCycleRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := PoxCycle(ctx, c, p.cycle)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if d.Cycle == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	body, err := marshal(newPoxCycleBody(d.Cycle))
	return body, tag, err
}

// poxSignersRead is a read of a page of a cycle's signers.
type poxSignersRead struct{ cycle, limit, offset int }

func parsePoxSigners(r *http.Request) (read, error) {
	var p poxSignersRead
	var err error
	if p.cycle, err = parseCycle(r); err != nil {
		return nil, err
	}
	p.limit, p.offset, err = poxPage(r, poxSignerLimit, poxSignerMax)
	return p, err
}

func (p poxSignersRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p poxSignersRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := PoxCycleSigners(ctx, c, p.cycle, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	if d.Cycle == nil {
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, poxCycleNotFound)
	}
	pg := &d.Cycle.Page
	results := make([]poxSignerBody, len(pg.Results))
	for i := range pg.Results {
		results[i] = newPoxSignerBody(&pg.Results[i])
	}
	body, err := poxPageBody(p.limit, p.offset, pg.Total, results)
	return body, tag, err
}

// poxSignerRead is a read of one signer of a cycle.
type poxSignerRead struct {
	cycle int
	key   string
}

// parsePoxSigner reads the cycle and the signing key, with or without 0x (the reference adds a
// missing 0x).
func parsePoxSigner(r *http.Request) (read, error) {
	key := mux.Vars(r)["signer_key"]
	if !strings.HasPrefix(key, "0x") && !strings.HasPrefix(key, "0X") {
		key = "0x" + key
	}
	cycle, key, err := parseSigner(r, key)
	return poxSignerRead{cycle, key}, err
}

func (p poxSignerRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p poxSignerRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := PoxCycleSigner(ctx, c, p.cycle, p.key)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	switch {
	case d.Cycle == nil:
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, poxCycleNotFound)
	case d.Cycle.Signer == nil:
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	body, err := marshal(newPoxSignerBody(d.Cycle.Signer))
	return body, tag, err
}

// poxStackersRead is a read of a page of the stackers of a cycle's signer.
type poxStackersRead struct {
	cycle         int
	key           string
	limit, offset int
}

// parsePoxStackers reads the cycle, the signing key and the page. The key must carry its 0x
// here: the reference looks the signer up with the key as given, and fails without the prefix.
func parsePoxStackers(r *http.Request) (read, error) {
	var p poxStackersRead
	var err error
	if p.cycle, p.key, err = parseSigner(r, mux.Vars(r)["signer_key"]); err != nil {
		return nil, err
	}
	p.limit, p.offset, err = poxPage(r, poxStackerLimit, poxStackerMax)
	return p, err
}

func (p poxStackersRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p poxStackersRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := PoxCycleSignerStackers(ctx, c, p.cycle, p.key, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	tag := tipFieldsTag(&d.Tip)
	switch {
	case d.Cycle == nil:
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, poxCycleNotFound)
	case d.Cycle.Signer == nil:
		return nil, tag, stxgraph.Errorf(stxgraph.ENOTFOUND, poxSignerNotFound)
	}
	pg := &d.Cycle.Signer.Page
	results := make([]poxStackerBody, len(pg.Results))
	for i, s := range pg.Results {
		results[i] = poxStackerBody{s.Stacker_address, s.Stacked_amount, deref(s.Pox_address), s.Stacker_type}
	}
	body, err := poxPageBody(p.limit, p.offset, pg.Total, results)
	return body, tag, err
}
