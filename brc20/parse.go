package brc20

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind of a parsed operation.
type Kind int

const (
	Deploy Kind = iota + 1
	Mint
	Transfer
)

// Op is an inscription body that reads as a BRC-20 operation. Whether it takes effect depends on
// the state (Process); the checks here need only the inscription itself.
type Op struct {
	Kind        Kind
	Ticker      string // lower case
	DisplayTick string // as inscribed
	// Deploy: maximum supply and mint limit scaled by 10^Decimals.
	Max, Limit *big.Int
	Decimals   int
	SelfMint   bool
	// Mint and transfer: the amount as inscribed; its scale depends on the token.
	Amount string
}

// contentTypes are the content types read as text or JSON. Hiro matches the whole content type
// exactly against ord's media table (so "text/plain; charset=utf-8" is not text), including its
// quirk of listing PGP signatures as text; other indexers only look at the part before ';'.
var contentTypes = map[string]bool{
	"text/plain":                true,
	"text/plain;charset=utf-8":  true,
	"application/json":          true,
	"application/pgp-signature": true,
}

// The fields each operation shape knows. A duplicate or a non-string value in one of them
// invalidates the shape (Hiro parses with a strict struct); other fields are ignored.
var (
	deployFields = []string{"p", "op", "tick", "max", "lim", "dec", "self_mint"}
	deployNeeds  = []string{"p", "op", "tick", "max"}
	amountFields = []string{"p", "op", "tick", "amt"}
)

// Parse reads an inscription's content type and raw body as a BRC-20 operation; ok is false when
// it is none. Keys are case-sensitive (a key "P" is not "p"), every protocol field must be a JSON
// string, and the body must be strict, valid UTF-8 JSON with an object at the top.
func Parse(contentType string, body []byte) (op Op, ok bool) {
	if !contentTypes[contentType] || !utf8.Valid(body) || !json.Valid(body) {
		return Op{}, false
	}
	fields, ok := objectFields(body)
	if !ok {
		return Op{}, false
	}
	// As in Hiro: a body that has the deploy shape is a deploy or nothing, even when its op is
	// "mint" (a mint carrying a "max" field is ignored); only a body without it may be a mint or
	// a transfer.
	if d, ok := stringFields(fields, deployFields, deployNeeds); ok {
		if *d["p"] != "brc-20" || *d["op"] != "deploy" {
			return Op{}, false
		}
		return parseDeploy(d)
	}
	a, ok := stringFields(fields, amountFields, amountFields)
	if !ok || *a["p"] != "brc-20" {
		return Op{}, false
	}
	tick := *a["tick"]
	if len(tick) < 4 || len(tick) > 5 || strings.ContainsRune(tick, 0) {
		return Op{}, false
	}
	switch *a["op"] {
	case "mint":
		op.Kind = Mint
	case "transfer":
		op.Kind = Transfer
	default:
		return Op{}, false
	}
	// The decimals are checked against the token's later; here only against the maximum.
	if v, ok := numeric(*a["amt"], 18); !ok || v == 0 {
		return Op{}, false
	}
	op.Ticker, op.DisplayTick, op.Amount = Lower(tick), tick, *a["amt"]
	return op, true
}

func parseDeploy(d map[string]*string) (Op, bool) {
	tick := *d["tick"]
	// A NUL (escaped as \u0000) cannot be stored in a text column; OPI rejects such ticks too.
	if strings.ContainsRune(tick, 0) {
		return Op{}, false
	}
	op := Op{Kind: Deploy, Ticker: Lower(tick), DisplayTick: tick, Decimals: 18}
	// Hiro: "self_mint":"true" requires a 5-byte ticker (a 4-byte one makes the deploy invalid,
	// where other indexers deploy a normal token); any other value means a normal 4-byte token.
	if s := d["self_mint"]; s != nil && *s == "true" {
		if len(tick) != 5 {
			return Op{}, false
		}
		op.SelfMint = true
	} else if len(tick) != 4 {
		return Op{}, false
	}
	if s := d["dec"]; s != nil {
		if *s == "" || strings.TrimLeft(*s, "0123456789") != "" {
			return Op{}, false
		}
		dec, err := strconv.ParseUint(*s, 10, 8)
		if err != nil || dec > 18 {
			return Op{}, false
		}
		op.Decimals = int(dec)
	}
	maxStr := *d["max"]
	v, ok := numeric(maxStr, op.Decimals)
	if !ok {
		return Op{}, false
	}
	if v == 0 {
		if !op.SelfMint {
			return Op{}, false
		}
		// An unlimited self-mint supply is stored as uint64 max whole tokens.
		maxStr = strconv.FormatUint(math.MaxUint64, 10)
	}
	op.Max = Scale(maxStr, op.Decimals)
	op.Limit = op.Max
	if s := d["lim"]; s != nil {
		v, ok := numeric(*s, op.Decimals)
		if !ok || v == 0 {
			return Op{}, false
		}
		op.Limit = Scale(*s, op.Decimals)
	}
	return op, true
}

// objectFields splits a top-level JSON object into its members in order, keys unescaped.
func objectFields(body []byte) (map[string][]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	fields := map[string][]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		fields[key] = append(fields[key], raw)
	}
	return fields, true
}

// stringFields reads the known fields as strings: nil when absent or null (only allowed for an
// optional field), and fails on a duplicate, a missing required field or a non-string value.
func stringFields(fields map[string][]json.RawMessage, known, required []string) (map[string]*string, bool) {
	out := make(map[string]*string, len(known))
	for _, k := range known {
		vs := fields[k]
		if len(vs) > 1 {
			return nil, false
		}
		if len(vs) == 0 || string(vs[0]) == "null" {
			out[k] = nil
			continue
		}
		if vs[0][0] != '"' || hasLoneSurrogate(vs[0]) {
			return nil, false
		}
		var s string
		if err := json.Unmarshal(vs[0], &s); err != nil {
			return nil, false
		}
		out[k] = &s
	}
	for _, k := range required {
		if out[k] == nil {
			return nil, false
		}
	}
	return out, true
}

// hasLoneSurrogate reports a \uD800-\uDFFF escape not forming a pair, which strict parsers
// reject and Go would silently replace.
func hasLoneSurrogate(raw []byte) bool {
	s := string(raw)
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' {
			i++ // skip the escaped character (it may be a backslash)
			continue
		}
		r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		if err != nil {
			return true
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return true
			}
			lo, err := strconv.ParseUint(s[i+8:i+12], 16, 32)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

// uint64Ceiling is uint64 max as a float64 (2^64), the bound Hiro compares amounts with.
var uint64Ceiling = float64(math.MaxUint64)

// numeric checks an amount string's grammar: digits with at most one '.', which is neither first
// nor last; at most maxDecimals fractional digits (zeros count); at most uint64 max whole tokens.
// It returns the value as a float64, good only for the zero and bound checks. The bound is
// checked as Hiro does, on the float64 value, so amounts a few units above 2^64-1 that round
// to 2^64 pass (other indexers compare exact integers).
func numeric(s string, maxDecimals int) (float64, bool) {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Count(s, ".") > 1 ||
		strings.TrimLeft(s, "0123456789.") != "" {
		return 0, false
	}
	if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > maxDecimals {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f > uint64Ceiling {
		return 0, false
	}
	return f, true
}

// Scale converts a grammatical amount string to an integer scaled by 10^decimals; the string
// must have at most decimals fractional digits.
func Scale(s string, decimals int) *big.Int {
	whole, frac, _ := strings.Cut(s, ".")
	v, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	return v
}

// Unscale renders an integer scaled by 10^decimals with exactly decimals fractional digits, as
// the reference does ("21000000.000000000000000000" for 21e24 at 18 decimals).
func Unscale(integer string, decimals int) string {
	if decimals == 0 {
		return integer
	}
	if len(integer) <= decimals {
		integer = strings.Repeat("0", decimals-len(integer)+1) + integer
	}
	cut := len(integer) - decimals
	return integer[:cut] + "." + integer[cut:]
}

// Lower lower-cases a ticker as the canonical indexers do (Rust's and Python's full Unicode
// lowercasing): like strings.ToLower except that 'İ' becomes "i̇" and a final capital sigma
// becomes 'ς'.
func Lower(s string) string {
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && i > 0 && unicode.IsLetter(runes[i-1]) && (i+1 == len(runes) || !unicode.IsLetter(runes[i+1])):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
