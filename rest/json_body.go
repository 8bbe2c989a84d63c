package rest

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// marshal encodes v compactly as JSON with <, > and & as they are, as the reference writes them.
// A body that writes itself (selfWriting) does.
func marshal(v any) ([]byte, error) {
	if s, ok := v.(selfWriting); ok {
		return s.appendJSON(make([]byte, 0, s.sizeHint()))
	}
	return appendJSON(nil, v)
}

// selfWriting is a body that holds a part of the GraphQL answer as it is (a block's transaction
// ids: a list of thousands), already compact, and writes itself around it: encoding/json would
// scan every json.RawMessage again to compact it.
type selfWriting interface {
	appendJSON(dst []byte) ([]byte, error)
	// sizeHint is about the length of the JSON, so that it is written into one buffer of that
	// size instead of one grown by copying (a page of blocks is hundreds of kilobytes).
	sizeHint() int
}

// answerJSON is a part of the GraphQL answer kept as it is, compact JSON. The operations' decoder
// hands each value its own copy of the answer's bytes (MakeRequest), so the value keeps that
// copy instead of copying it again as json.RawMessage does: a page of blocks' ids is hundreds of
// kilobytes. Nothing else may decode into it.
type answerJSON []byte

func (a *answerJSON) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

// MarshalJSON writes it as it is, as json.RawMessage does.
func (a answerJSON) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	return a, nil
}

// appendJSON appends v encoded as marshal encodes it.
func appendJSON(dst []byte, v any) ([]byte, error) {
	if s, ok := v.(selfWriting); ok {
		return s.appendJSON(dst)
	}
	return encodeJSON(dst, v)
}

// encodeJSON appends v as encoding/json writes it, with <, > and & as they are.
func encodeJSON(dst []byte, v any) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// page is a page of a listing: {limit, offset[, total], results}.
type page[T any] struct {
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	Total   *int `json:"total,omitempty"`
	Results []T  `json:"results"`
}

// appendJSON writes the page as encoding/json would, each result as marshal writes it: in one
// pass of encoding/json unless its results write themselves.
func (p page[T]) appendJSON(dst []byte) ([]byte, error) {
	var result T
	if _, ok := any(result).(selfWriting); !ok {
		return encodeJSON(dst, p)
	}
	dst = strconv.AppendInt(append(dst, `{"limit":`...), int64(p.Limit), 10)
	dst = strconv.AppendInt(append(dst, `,"offset":`...), int64(p.Offset), 10)
	if p.Total != nil {
		dst = strconv.AppendInt(append(dst, `,"total":`...), int64(*p.Total), 10)
	}
	if p.Results == nil {
		return append(dst, `,"results":null}`...), nil
	}
	dst = append(dst, `,"results":[`...)
	for i, r := range p.Results {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJSON(dst, r); err != nil {
			return nil, err
		}
	}
	return append(dst, "]}"...), nil
}

// sizeHint sums the results' hints. Results that do not write themselves have none: encoding/json
// writes the whole page into an empty buffer at its length at once.
func (p page[T]) sizeHint() int {
	n := 0
	for _, r := range p.Results {
		if s, ok := any(r).(selfWriting); ok {
			n += s.sizeHint()
		}
	}
	if n > 0 {
		n += 64 // the page's own members
	}
	return n
}
