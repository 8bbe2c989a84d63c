package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/respcache"
)

// persistedAnswers keeps the /graphql answers of persisted queries (a sha256Hash in the
// persistedQuery extension) per chain state: the chain tip row, which ingestion rewrites in the
// transaction of every block, microblock, burn block and mempool change, is read before and after
// computing an answer, and the answer is kept only when both reads agree, so it is exactly the
// answer at that state. A hit costs that one read. Documents with a mutation or a BRC-20 root
// field (whose state the tip does not name) are never kept.
type persistedAnswers struct {
	cache *respcache.Cache
	store *db.Store

	mu        sync.Mutex
	cacheable map[string]bool // persisted hash -> its document only reads chain state
}

// maxPersistedDocuments bounds the documents whose kind is remembered.
const maxPersistedDocuments = 1000

// persistedRequest is what a GET or POST /graphql request names.
type persistedRequest struct {
	Query         string          `json:"query"`
	OperationName string          `json:"operationName"`
	Variables     json.RawMessage `json:"variables"`
	Extensions    struct {
		PersistedQuery struct {
			Sha256Hash string `json:"sha256Hash"`
		} `json:"persistedQuery"`
	} `json:"extensions"`
}

func (p *persistedAnswers) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Incremental delivery (@defer over multipart or server-sent events) streams its parts.
		accept := r.Header.Get("Accept")
		if strings.Contains(accept, "multipart/") || strings.Contains(accept, "text/event-stream") {
			next.ServeHTTP(w, r)
			return
		}
		req, ok := readPersisted(r)
		hash := req.Extensions.PersistedQuery.Sha256Hash
		if !ok || hash == "" {
			next.ServeHTTP(w, r)
			return
		}
		if req.Query != "" {
			p.learn(hash, req.Query)
		}
		p.mu.Lock()
		cacheable := p.cacheable[hash]
		p.mu.Unlock()
		if !cacheable {
			next.ServeHTTP(w, r)
			return
		}
		gen := p.cache.Generation()
		state, err := p.state(r.Context())
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		key := "graphql\x00" + hash + "\x00" + req.OperationName + "\x00" + canonicalJSON(req.Variables) + "\x00" + state
		if ans, ok := p.cache.Get(key); ok {
			w.Header().Set("Content-Type", ans.ContentType)
			w.WriteHeader(http.StatusOK)
			w.Write(ans.Body) //nolint:errcheck // client gone
			return
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status != http.StatusOK || bytes.Contains(rec.body.Bytes(), []byte(`"errors"`)) {
			return
		}
		if after, err := p.state(r.Context()); err == nil && after == state {
			p.cache.Put(key, gen, respcache.Answer{Body: rec.body.Bytes(), ContentType: rec.Header().Get("Content-Type")})
		}
	})
}

// state names the chain state an answer is read at.
func (p *persistedAnswers) state(ctx context.Context) (string, error) {
	tip, err := p.store.ChainTip(ctx)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(tip)
	return string(b), err
}

// learn records whether the document persisted under hash only reads chain state: queries only,
// every root field named (no fragments at the root) and none of BRC-20.
func (p *persistedAnswers) learn(hash, query string) {
	sum := sha256.Sum256([]byte(query))
	if hex.EncodeToString(sum[:]) != hash {
		return
	}
	ok := true
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil || len(doc.Operations) == 0 {
		ok = false
	} else {
		for _, op := range doc.Operations {
			if op.Operation != ast.Query {
				ok = false
			}
			for _, sel := range op.SelectionSet {
				f, isField := sel.(*ast.Field)
				if !isField || strings.HasPrefix(f.Name, "brc20") {
					ok = false
				}
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, known := p.cacheable[hash]; !known && len(p.cacheable) >= maxPersistedDocuments {
		return
	}
	p.cacheable[hash] = ok
}

// readPersisted reads a GET's parameters or a JSON POST's body (putting the body back).
func readPersisted(r *http.Request) (persistedRequest, bool) {
	var req persistedRequest
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		req.Variables = json.RawMessage(q.Get("variables"))
		if ext := q.Get("extensions"); ext != "" {
			if json.Unmarshal([]byte(ext), &req.Extensions) != nil {
				return req, false
			}
		}
		return req, true
	case http.MethodPost:
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.Body == nil {
			return req, false
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		if err != nil || len(body) > 1<<20 || json.Unmarshal(body, &req) != nil {
			return persistedRequest{}, false
		}
		return req, true
	}
	return req, false
}

// canonicalJSON re-encodes variables with sorted keys, so equal variables make equal keys.
func canonicalJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "null"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// recorder passes a response through and keeps a copy of its status and body.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
