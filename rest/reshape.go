package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	genql "github.com/Khan/genqlient/graphql"
	"github.com/gorilla/mux"
)

// The fixed operations alias every field to the reference's JSON key, so most of a GraphQL
// response is already the REST body. reshape rewrites the few places where the reference's JSON
// cannot be expressed as a GraphQL selection, such as the execution cost that the reference
// flattens (rules; routes add their own). It walks gqlgen's compact JSON once, copying everything
// else byte for byte.

// reshaped is rt served from its operation's JSON, reshaped.
func (a *API) reshaped(rt route) route {
	rt.parse = func(r *http.Request) (read, error) {
		vars, err := rt.params(r)
		return reshapedRead{a.ops, rt, vars}, err
	}
	if rt.tagOp != "" && rt.etagFor == nil {
		rt.pathTag = func(ctx context.Context, _ genql.Client, r *http.Request) (string, error) {
			vars := map[string]any{}
			for k, v := range mux.Vars(r) {
				vars[k] = v
			}
			data, err := a.ops.raw(ctx, rt.tagOp, vars)
			if err != nil {
				return "", err
			}
			return rt.etagOf(vars, data), nil
		}
	}
	return rt
}

// reshapedRead is a request of a reshaped route.
type reshapedRead struct {
	ops  *operations
	rt   route
	vars map[string]any
}

func (rd reshapedRead) etag(ctx context.Context, _ genql.Client) (string, error) {
	if rd.rt.tagOp == "" {
		return "", nil
	}
	data, err := rd.ops.raw(ctx, rd.rt.tagOp, rd.vars)
	if err != nil {
		return "", err
	}
	return rd.rt.etagOf(rd.vars, data), nil
}

func (rd reshapedRead) answer(ctx context.Context, _ genql.Client) ([]byte, string, error) {
	data, err := rd.ops.raw(ctx, rd.rt.op, rd.vars)
	if err != nil {
		return nil, "", err
	}
	tag := rd.rt.etagOf(rd.vars, data)
	body, err := rd.rt.body(rd.vars, data)
	return body, tag, err
}

// etagOf is the route's ETag for a request's data ("" when the route has none).
func (rt route) etagOf(vars map[string]any, data json.RawMessage) string {
	switch {
	case rt.etagFor != nil:
		return rt.etagFor(vars, data)
	case rt.etag != nil:
		return rt.etag(data)
	}
	return ""
}

// rule rewrites the value of one key. It returns the bytes to emit for the member (possibly
// several members, or none) given the key and value.
type rule func(dst []byte, key, value []byte) []byte

// rules maps a JSON key to its rule; one table serves every route, since a key means the same
// thing wherever the reference uses it.
var rules = map[string]rule{}

func init() {
	rules["execution_cost"] = flatten
}

// reshape rewrites a JSON document with rules.
func reshape(src []byte) ([]byte, error) {
	dst := make([]byte, 0, len(src))
	dst, n, err := rewriteValue(dst, src, 0)
	if err != nil {
		return nil, err
	}
	if n != len(src) {
		return nil, fmt.Errorf("reshape: trailing data at %d", n)
	}
	return dst, nil
}

func rewriteValue(dst, src []byte, i int) ([]byte, int, error) {
	if i >= len(src) {
		return nil, 0, fmt.Errorf("reshape: unexpected end")
	}
	switch src[i] {
	case '{':
		return rewriteObject(dst, src, i)
	case '[':
		dst = append(dst, '[')
		i++
		for first := true; ; first = false {
			if src[i] == ']' {
				return append(dst, ']'), i + 1, nil
			}
			if !first {
				if src[i] != ',' {
					return nil, 0, fmt.Errorf("reshape: expected , at %d", i)
				}
				dst, i = append(dst, ','), i+1
			}
			var err error
			if dst, i, err = rewriteValue(dst, src, i); err != nil {
				return nil, 0, err
			}
		}
	default:
		end, err := skipValue(src, i)
		if err != nil {
			return nil, 0, err
		}
		return append(dst, src[i:end]...), end, nil
	}
}

func rewriteObject(dst, src []byte, i int) ([]byte, int, error) {
	dst = append(dst, '{')
	i++
	start := len(dst)
	for first := true; ; first = false {
		if src[i] == '}' {
			return append(dst, '}'), i + 1, nil
		}
		if !first {
			i++ // ','
		}
		keyEnd, err := skipValue(src, i)
		if err != nil {
			return nil, 0, err
		}
		key := src[i+1 : keyEnd-1]
		i = keyEnd + 1 // ':'
		valEnd, err := skipValue(src, i)
		if err != nil {
			return nil, 0, err
		}
		sep := len(dst) > start
		mark := len(dst)
		if sep {
			dst = append(dst, ',')
		}
		before := len(dst)
		if r := rules[string(key)]; r != nil {
			dst = r(dst, key, src[i:valEnd])
		} else {
			dst = append(append(append(dst, '"'), key...), '"', ':')
			if dst, _, err = rewriteValue(dst, src, i); err != nil {
				return nil, 0, err
			}
		}
		if len(dst) == before { // the rule emitted nothing: drop the separator too
			dst = dst[:mark]
		}
		i = valEnd
	}
}

// pick returns the value at path in gqlgen's compact JSON (nil when a key is missing), scanning
// only the members before it: the operations select their small members (ETag inputs, totals)
// before their pages, so a page is walked once, by reshape, rather than parsed again to find them.
func pick(src []byte, path ...string) []byte {
	for _, key := range path {
		src = objectMember(src, key)
	}
	return src
}

func objectMember(obj []byte, key string) []byte {
	for k, v := range members(obj) {
		if string(k) == key {
			return v
		}
	}
	return nil
}

// members yields the top-level members of a compact JSON object in order, key (unquoted) and
// value; nothing when obj is no object, and up to the first malformed member.
func members(obj []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if len(obj) == 0 || obj[0] != '{' {
			return
		}
		for i := 1; i < len(obj) && obj[i] != '}'; {
			if obj[i] == ',' {
				i++
			}
			keyEnd, err := skipValue(obj, i)
			if err != nil || keyEnd < i+2 {
				return
			}
			valEnd, err := skipValue(obj, keyEnd+1)
			if err != nil || !yield(obj[i+1:keyEnd-1], obj[keyEnd+1:valEnd]) {
				return
			}
			i = valEnd
		}
	}
}

// skipValue returns the end of the JSON value starting at i (gqlgen emits no whitespace).
func skipValue(src []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"':
			if j = stringEnd(src, j); j == len(src) {
				return 0, fmt.Errorf("reshape: unterminated string at %d", i)
			}
			if depth == 0 {
				return j + 1, nil
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
			if depth < 0 {
				return j, nil
			}
		case ',', ':':
			if depth == 0 {
				return j, nil
			}
		}
	}
	if depth == 0 {
		return len(src), nil
	}
	return 0, fmt.Errorf("reshape: unterminated value at %d", i)
}

// stringEnd returns the index of the quote closing the JSON string that opens at i (len(src)
// when it is unterminated): the next quote not escaped, i.e. preceded by an even number of
// backslashes. Most strings hold no escape, so it jumps from quote to quote.
func stringEnd(src []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return len(src)
		}
		j += k
		backslashes := 0
		for b := j - 1; b > i && src[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j
		}
		j++
	}
}

func member(dst, key, value []byte) []byte {
	dst = append(append(append(dst, '"'), key...), '"', ':')
	return append(dst, value...)
}

// nullAsEmpty renders null as "".
func nullAsEmpty(dst, key, value []byte) []byte {
	if string(value) == "null" {
		value = []byte(`""`)
	}
	return member(dst, key, value)
}

// flatten splices a nested object into its parent with the key as prefix:
// "execution_cost":{"read_count":1} becomes "execution_cost_read_count":1.
func flatten(dst, key, value []byte) []byte {
	for i, first := 1, true; i < len(value) && value[i] != '}'; first = false {
		if !first {
			dst, i = append(dst, ','), i+1
		}
		keyEnd, _ := skipValue(value, i)
		valEnd, _ := skipValue(value, keyEnd+1)
		dst = append(append(append(append(dst, '"'), key...), '_'), value[i+1:keyEnd-1]...)
		dst = append(append(dst, '"', ':'), value[keyEnd+1:valEnd]...)
		i = valEnd
	}
	return dst
}
