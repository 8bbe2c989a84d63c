package rest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// Query parameters are validated here with the reference's messages: its schema validator's for
// types and bounds ("querystring/limit must be <= 30"), its handlers' for the rest.

func badRequest(format string, args ...any) error {
	return stxgraph.Errorf(stxgraph.EINVALID, format, args...)
}

// schemaError is a parameter its request schema refuses, before any handler runs: the
// reference's validator names the parameter ("querystring/limit must be <= 30") and marks the
// answer with its validation code.
func schemaError(format string, args ...any) error {
	return &validationError{stxgraph.Errorf(stxgraph.EINVALID, format, args...), codeValidation}
}

// badURL is a request path that does not decode (not UTF-8 once percent-decoded), refused by
// the reference's router before its schema.
func badURL(r *http.Request) error {
	return &validationError{stxgraph.Errorf(stxgraph.EINVALID, "'%s' is not a valid url component", r.RequestURI), codeBadURL}
}

// The codes the reference's framework gives a request it refuses before any handler runs.
const (
	codeValidation = "FST_ERR_VALIDATION"
	codeBadURL     = "FST_ERR_BAD_URL"
)

// validationError is a request refused before any handler runs, with the code of the refusal.
type validationError struct {
	err  *stxgraph.Error
	code string
}

func (e *validationError) Error() string { return e.err.Error() }
func (e *validationError) Unwrap() error { return e.err }

// query wraps the request's query string.
type query url.Values

// boolean parses an optional true/false parameter.
func (q query) boolean(name string) (bool, error) {
	vs, ok := q[name]
	if !ok {
		return false, nil
	}
	switch vs[0] {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, schemaError("querystring/%s must be boolean", name)
}

// integer parses an optional non-negative integer parameter, written as JavaScript writes an
// integral number ("5", "5.0", "1e1", "0x5"), as the reference's schema validator coerces it; ok
// is false when it is absent.
func (q query) integer(name string) (n int, ok bool, err error) {
	vs, present := q[name]
	if !present {
		return 0, false, nil
	}
	f, isInteger := jsInteger(vs[0])
	switch {
	case !isInteger:
		return 0, false, schemaError("querystring/%s must be integer", name)
	case f < 0:
		return 0, false, schemaError("querystring/%s must be >= 0", name)
	case f > math.MaxInt32: // no listing reaches this far, and GraphQL's Int stops here
		return 0, false, schemaError("querystring/%s must be <= %d", name, math.MaxInt32)
	}
	return int(f), true, nil
}

// limit parses a page size: absent or 0 means the default (the reference treats 0 as "not
// given"), above max is an error.
func (q query) limit(name string, def, max int) (int, error) {
	n, ok, err := q.integer(name)
	if err != nil {
		return 0, err
	}
	if n > max {
		return 0, schemaError("querystring/%s must be <= %d", name, max)
	}
	if !ok || n == 0 {
		return def, nil
	}
	return n, nil
}

// keptLimit parses a page size that the reference's handler takes from its schema as given: 0
// stays 0 (no rows), absent is the default.
func (q query) keptLimit(name string, def, max int) (int, error) {
	n, ok, err := q.integer(name)
	switch {
	case err != nil:
		return 0, err
	case n > max:
		return 0, schemaError("querystring/%s must be <= %d", name, max)
	case !ok:
		return def, nil
	}
	return n, nil
}

// offset parses a page offset (default 0).
func (q query) offset(name string) (int, error) {
	n, _, err := q.integer(name)
	return n, err
}

// list returns a repeated parameter's values, splitting a single value on commas as the
// reference does (name[] is accepted too, as query-string libraries send arrays).
func (q query) list(name string) []string {
	vs := append(append([]string{}, q[name]...), q[name+"[]"]...)
	if len(vs) == 1 && strings.Contains(vs[0], ",") {
		return strings.Split(vs[0], ",")
	}
	return vs
}

var txIDPattern = regexp.MustCompile(`^(0x)?[a-fA-F0-9]{64}$`)

// txID validates one transaction id as the reference's schema does; param names it in messages
// ("tx_id" or "tx_id/0").
func txID(param, s string) error {
	if !txIDPattern.MatchString(s) {
		return schemaError(`querystring/%s must match pattern "^(0x)?[a-fA-F0-9]{64}$"`, param)
	}
	return nil
}

// hexInput decodes 0x-prefixed hex with the reference's messages.
func hexInput(s string) ([]byte, error) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, badRequest(`Hex string is missing the "0x" prefix`)
	}
	if len(s)%2 != 0 {
		return nil, badRequest("Hex string is an odd number of digits")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, badRequest("Invalid hash characters")
	}
	return b, nil
}

// blockRef is a block given by a parameter: by height or by hash, or neither.
type blockRef struct {
	height *int
	hash   *string
}

func (b blockRef) given() bool { return b.height != nil || b.hash != nil }

// untilBlock reads the until_block parameter: a Stacks block hash (0x…) or a height read the
// way JavaScript's parseInt reads it ("12abc" is 12).
func untilBlock(q query, unanchored bool) (blockRef, error) {
	s := q.get("until_block")
	if s == "" {
		return blockRef{}, nil
	}
	if unanchored {
		return blockRef{}, badRequest(resolvers.MsgUnanchoredAndUntil)
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		b, err := hexInput(s)
		if err != nil {
			return blockRef{}, err
		}
		hash := "0x" + hex.EncodeToString(b)
		return blockRef{hash: &hash}, nil
	}
	h, ok := parseInt(s)
	if !ok || h < 1 || h > 1<<31-1 {
		return blockRef{}, badRequest(resolvers.MsgBadBlockHeight)
	}
	height := int(h)
	return blockRef{height: &height}, nil
}

// parseInt mimics JavaScript's parseInt(s, 10): optional leading space and sign, then the
// longest run of digits.
func parseInt(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 || end > 12 {
		return 0, false
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64)
	if neg {
		n = -n
	}
	return n, true
}

func (q query) get(name string) string {
	if vs := q[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// eventTypes validates the type filter of tx/events.
func eventTypes(q query) ([]EventType, error) {
	ts := q.list("type")
	for i, t := range ts {
		switch t {
		case "smart_contract_log", "stx_lock", "stx_asset", "fungible_token_asset", "non_fungible_token_asset":
		default:
			// The schema lets each item be one of five constants.
			item := fmt.Sprintf("querystring/type/%d must ", i)
			return nil, schemaError("%s", strings.Repeat(item+"be equal to constant, ", 5)+item+"match a schema in anyOf")
		}
	}
	if len(ts) == 0 {
		return nil, nil
	}
	types := make([]EventType, len(ts))
	for i, t := range ts {
		types[i] = EventType(t)
	}
	return types, nil
}

var (
	jsDecimal  = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	jsPrefixed = map[string]int{"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}
)

// jsNumber reads s as JavaScript's Number(s) does, for the non-empty strings its schema
// validator coerces to numbers: decimal (with fraction and exponent), 0x/0o/0b integers and
// Infinity, around white space; ok is false where JavaScript reads NaN.
func jsNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 2 {
		if base, ok := jsPrefixed[s[:2]]; ok {
			n, err := strconv.ParseUint(s[2:], base, 64)
			if errors.Is(err, strconv.ErrRange) {
				return math.Inf(1), true
			}
			return float64(n), err == nil
		}
	}
	switch strings.TrimPrefix(s, "+") {
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	if !jsDecimal.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

// jsInteger reads an integer parameter the way the reference's schema validator coerces one;
// ok is false for text that is not an integral number.
func jsInteger(s string) (float64, bool) {
	f, ok := jsNumber(s)
	return f, ok && (f == math.Trunc(f) || math.IsInf(f, 0))
}
