package rest

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

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

func init() {
	// A stacking operation's reward address without a standard encoding: the reference's
	// serializer writes a missing string as "".
	rules["pox_address"] = nullAsEmpty
	// Shares are JavaScript numbers: written as JSON.stringify writes them.
	rules["weight_percent"] = jsFloat
	rules["stacked_amount_percent"] = jsFloat
}

func poxRoutes() []route {
	const base = "/extended/v2/pox/cycles"
	r := func(path, op string, params func(*http.Request) (map[string]any, error), body func(map[string]any, json.RawMessage) ([]byte, error)) route {
		return route{path: base + path, op: op, tagOp: "ChainTipTag", reads: respcache.Chain, params: params, etag: chainTipETag, body: body}
	}
	return []route{
		r("", "PoxCycles", poxCyclesParams, poxPageBody(func(d []byte) ([]byte, error) { return pick(d, "page"), nil })),
		r("/{cycle_number}", "PoxCycle", poxCycleParams, poxCycleBody),
		r("/{cycle_number}/signers", "PoxCycleSigners", poxSignersParams, poxPageBody(func(d []byte) ([]byte, error) {
			c, err := poxCycleOf(d)
			return pick(c, "page"), err
		})),
		r("/{cycle_number}/signers/{signer_key}", "PoxCycleSigner", poxSignerParams, poxSignerBody),
		r("/{cycle_number}/signers/{signer_key}/stackers", "PoxCycleSignerStackers", poxStackersParams, poxPageBody(func(d []byte) ([]byte, error) {
			c, err := poxCycleOf(d)
			if err != nil {
				return nil, err
			}
			s := pick(c, "signer")
			if isNull(s) {
				return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, poxSignerNotFound)
			}
			return pick(s, "page"), nil
		})),
	}
}

// poxCyclesParams reads the cycle list's page; a limit of 0 is an empty page.
func poxCyclesParams(r *http.Request) (map[string]any, error) {
	q := query(r.URL.Query())
	limit, err := q.keptLimit("limit", poxCycleLimit, poxCycleMax)
	if err != nil {
		return nil, err
	}
	offset, err := q.offset("offset")
	if err != nil {
		return nil, err
	}
	return map[string]any{"limit": limit, "offset": offset}, nil
}

// poxCycleParams reads the cycle number path parameter: any spelling of an integral number
// that JavaScript's Number() reads (the reference's validator coerces it so: "14.0", "0xe" and
// " 14" are cycle 14); beyond 32 bits (where the reference's database fails) it is a 400.
func poxCycleParams(r *http.Request) (map[string]any, error) {
	f, ok := jsNumber(mux.Vars(r)["cycle_number"])
	switch {
	case !ok || math.IsInf(f, 0) || f != math.Trunc(f):
		return nil, schemaError("params/cycle_number must be integer")
	case f > math.MaxInt32:
		return nil, schemaError("params/cycle_number must be <= %d", math.MaxInt32)
	case f < math.MinInt32:
		return nil, schemaError("params/cycle_number must be >= %d", math.MinInt32)
	}
	return map[string]any{"cycle": int(f)}, nil
}

// withPage adds a page of limit/offset (limit 0 meaning the default) to the cycle's parameters.
func withPage(r *http.Request, params func(*http.Request) (map[string]any, error), def, max int) (map[string]any, error) {
	vars, err := params(r)
	if err != nil {
		return nil, err
	}
	q := query(r.URL.Query())
	if vars["limit"], err = q.limit("limit", def, max); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.offset("offset"); err != nil {
		return nil, err
	}
	return vars, nil
}

func poxSignersParams(r *http.Request) (map[string]any, error) {
	return withPage(r, poxCycleParams, poxSignerLimit, poxSignerMax)
}

// poxSignerParams reads the cycle and the signing key, hex with or without 0x (the reference
// adds a missing 0x); malformed hex, where the reference fails in its database, is a 400.
func poxSignerParams(r *http.Request) (map[string]any, error) {
	key := mux.Vars(r)["signer_key"]
	if !strings.HasPrefix(key, "0x") && !strings.HasPrefix(key, "0X") {
		key = "0x" + key
	}
	return poxKeyParams(r, key)
}

// poxStackersParams reads the cycle, the signing key and the page. The key must carry its 0x
// here: the reference looks the signer up with the key as given, and fails without the prefix.
func poxStackersParams(r *http.Request) (map[string]any, error) {
	return withPage(r, func(r *http.Request) (map[string]any, error) {
		return poxKeyParams(r, mux.Vars(r)["signer_key"])
	}, poxStackerLimit, poxStackerMax)
}

func poxKeyParams(r *http.Request, key string) (map[string]any, error) {
	b, err := hexInput(key)
	if err != nil {
		return nil, err
	}
	vars, err := poxCycleParams(r)
	if err != nil {
		return nil, err
	}
	vars["key"] = "0x" + hex.EncodeToString(b)
	return vars, nil
}

// poxPageBody renders a page the way the reference does: its total comes with the page's rows,
// so an empty page (an offset past the end, or limit 0) has a total of 0.
func poxPageBody(pageOf func(data []byte) ([]byte, error)) func(map[string]any, json.RawMessage) ([]byte, error) {
	return func(vars map[string]any, data json.RawMessage) ([]byte, error) {
		page, err := pageOf(data)
		if err != nil {
			return nil, err
		}
		total, err := intAt(page, "total")
		if err != nil {
			return nil, err
		}
		results, err := reshape(pick(page, "results"))
		if err != nil {
			return nil, err
		}
		if string(results) == "[]" {
			total = 0
		}
		return wrapPage(vars, "results", results, &total), nil
	}
}

func poxCycleBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	c := pick(data, "cycle")
	if isNull(c) {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	return reshape(c)
}

func poxSignerBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	c, err := poxCycleOf(data)
	if err != nil {
		return nil, err
	}
	s := pick(c, "signer")
	if isNull(s) {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Not found")
	}
	return reshape(s)
}

// poxCycleOf is the operation's cycle; the signer paths answer an unknown one with their own
// message.
func poxCycleOf(data []byte) ([]byte, error) {
	c := pick(data, "cycle")
	if isNull(c) {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, poxCycleNotFound)
	}
	return c, nil
}

func isNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// jsFloat rewrites a JSON number as JavaScript writes it (GraphQL's Float is written with
// Go's %g: 1e-05 where JavaScript writes 0.00001).
func jsFloat(dst, key, value []byte) []byte {
	f, err := strconv.ParseFloat(string(value), 64)
	if err != nil {
		return member(dst, key, value)
	}
	out, err := json.Marshal(f)
	if err != nil {
		return member(dst, key, value)
	}
	return member(dst, key, out)
}
