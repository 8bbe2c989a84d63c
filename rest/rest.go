// Package rest serves the legacy REST paths of the Stacks Blockchain API. Each route runs one
// fixed GraphQL operation in-process (parsed and validated once, at start-up) and reshapes its
// result into the reference's JSON; REST adds no SQL of its own.
package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/respcache"
)

// Options configures the REST adapter.
type Options struct {
	// ServerVersion is reported by the status endpoint and the X-API-Version header.
	ServerVersion string
	// DisableDeprecated answers the deprecated paths with 410 Gone, as the reference does with
	// ENABLE_DEPRECATED_ENDPOINTS=false.
	DisableDeprecated bool
	// Extensions run around the fixed operations as around /graphql's (the query timeout, the
	// loaders' batching).
	Extensions []graphql.HandlerExtension
	// Answers, when not nil, keeps every route's answers per version of the parts of the chain
	// state it reads, keyed by the request's path and query, so a read repeated at one chain
	// state runs no statement.
	Answers *respcache.Cache
}

// API is the REST adapter.
type API struct {
	ops  *operations
	opts Options
}

// New validates the fixed operations against es and returns the adapter.
func New(es graphql.ExecutableSchema, opts Options) (*API, error) {
	ops, err := newOperations(es, opts.Extensions)
	if err != nil {
		return nil, err
	}
	return &API{ops: ops, opts: opts}, nil
}

// route is one REST path: how to read its parameters, the fixed operation it runs, the ETag it
// carries and how the operation's data becomes the reference's body.
type route struct {
	path       string
	deprecated bool
	params     func(r *http.Request) (map[string]any, error)
	op         string
	// tagOp computes only the ETag, to answer If-None-Match without the full read ("" when the
	// route has no ETag); etag reads it from either operation's data.
	tagOp string
	etag  func(data json.RawMessage) string
	// etagFor, when set instead of etag, reads the ETag from the data and the request's
	// parameters (an ETag that names what the request asked for).
	etagFor func(vars map[string]any, data json.RawMessage) string
	body    func(r *http.Request, vars map[string]any, data json.RawMessage) ([]byte, error)
	// reads are the parts of the chain state the answer depends on, whose versions key it in
	// the answer cache (every part when none is named).
	reads respcache.Parts
	// redirect, when set, may send the request elsewhere before anything runs.
	redirect func(r *http.Request) (string, bool)
	// writeError writes the route's errors (the reference's v8 shape, writeError, when nil).
	writeError func(w http.ResponseWriter, err error)
}

// Register adds the REST routes to r.
func (a *API) Register(r *mux.Router) {
	r.HandleFunc("/extended", a.status).Methods(http.MethodGet)
	r.HandleFunc("/extended/v1/status", a.status).Methods(http.MethodGet)
	for _, rt := range a.routes() {
		h := paramsWithin(a.common(a.serve(rt), rt.deprecated))
		// The reference ignores trailing slashes.
		r.Handle(rt.path, h).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
		r.Handle(rt.path+"/", h).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
	}
	a.registerFaucets(r)
	a.registerBTCBalance(r)
	for _, p := range []string{"/extended/v1/openapi.json", "/extended/v1/openapi.json/"} {
		r.Handle(p, a.common(http.HandlerFunc(openAPI), false)).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
	}
}

// maxParamLength is the longest path parameter the reference's router matches (its framework's
// default): a longer one matches no route.
const maxParamLength = 100

// paramsWithin answers a request whose path parameters are longer than maxParamLength as a path
// no route serves.
func paramsWithin(next http.Handler) http.Handler {
	notFound := NotFound()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, v := range mux.Vars(r) {
			if len(v) > maxParamLength {
				notFound.ServeHTTP(w, r)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

const deprecationNotice = "See https://docs.hiro.so/stacks/api for more information"

// common adds what every REST response carries: open CORS, the API version, no caching unless
// the route sets an ETag, and the deprecation warning (or 410 when deprecated paths are off).
func (a *API) common(next http.Handler, deprecated bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-API-Version")
		h.Set("X-API-Version", a.opts.ServerVersion)
		h.Set("Cache-Control", "no-store")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET,HEAD,POST,OPTIONS")
			h.Set("Access-Control-Allow-Headers", r.Header.Get("Access-Control-Request-Headers"))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if deprecated {
			if a.opts.DisableDeprecated {
				writeJSON(w, http.StatusGone, map[string]string{"error": "Gone", "message": "This endpoint has been disabled. " + deprecationNotice})
				return
			}
			h.Set("Warning", `299 - "Deprecated: `+deprecationNotice+`"`)
		}
		next.ServeHTTP(w, r)
	})
}

// serve runs a route: parameters, the If-None-Match shortcut, the operation, headers, body.
func (a *API) serve(rt route) http.Handler {
	writeError := writeError
	if rt.writeError != nil {
		writeError = rt.writeError
	}
	reads := rt.reads
	if reads == 0 {
		reads = respcache.Chain | respcache.Mempool | respcache.Brc20
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.redirect != nil {
			if target, ok := rt.redirect(r); ok {
				setETag(w, a.handlerTag(r, rt))
				w.Header().Set("Location", target)
				w.WriteHeader(http.StatusFound)
				return
			}
		}
		vars, err := rt.params(r)
		if err != nil {
			if !errors.As(err, new(*validationError)) {
				setETag(w, a.handlerTag(r, rt))
			}
			writeError(w, err)
			return
		}
		// An answer kept at the current chain state needs no statement, If-None-Match included;
		// identical requests arriving while it is computed wait for it.
		key := r.URL.Path + "?" + r.URL.RawQuery
		at, _ := a.opts.Answers.Version()
		var failed error
		ans, _ := a.opts.Answers.Do(r.Context(), key, reads, at, func() (respcache.Answer, bool) {
			var ans respcache.Answer
			ans, failed = a.answer(w, r, rt, vars)
			return ans, failed == nil && ans.Body != nil
		})
		switch {
		case failed != nil:
			// The reference computes the ETag before its handler, so its not-found answers
			// carry one too.
			setETag(w, ans.ETag)
			writeError(w, failed)
		case ans.Body != nil: // none when a 304 was written
			writeAnswer(w, r, ans)
		}
	})
}

// handlerTag is the ETag the reference has set when its handler refuses or redirects a request
// that passed the request schema: the route's tag over the path's parameters alone ("" for a tag
// that needs more, or that cannot be read).
func (a *API) handlerTag(r *http.Request, rt route) string {
	if rt.tagOp == "" || rt.etagFor != nil {
		return ""
	}
	vars := map[string]any{}
	for k, v := range mux.Vars(r) {
		vars[k] = v
	}
	data, err := a.ops.raw(r.Context(), rt.tagOp, vars)
	if err != nil {
		return ""
	}
	return rt.etagOf(vars, data)
}

// answer computes rt's answer to r; with an If-None-Match naming the current state it answers
// 304 itself and returns no answer.
func (a *API) answer(w http.ResponseWriter, r *http.Request, rt route, vars map[string]any) (respcache.Answer, error) {
	if rt.tagOp != "" && r.Header.Get("If-None-Match") != "" {
		data, err := a.ops.raw(r.Context(), rt.tagOp, vars)
		if err != nil {
			return respcache.Answer{}, err
		}
		if tag := rt.etagOf(vars, data); notModified(r, tag) {
			setETag(w, tag)
			w.WriteHeader(http.StatusNotModified)
			return respcache.Answer{}, nil
		}
	}
	data, err := a.ops.raw(r.Context(), rt.op, vars)
	if err != nil {
		return respcache.Answer{}, err
	}
	body, err := rt.body(r, vars, data)
	if err != nil {
		return respcache.Answer{ETag: rt.etagOf(vars, data)}, err
	}
	return respcache.Answer{Body: body, ETag: rt.etagOf(vars, data)}, nil
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

func writeAnswer(w http.ResponseWriter, r *http.Request, ans respcache.Answer) {
	setETag(w, ans.ETag)
	if ans.ETag != "" && notModified(r, ans.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(ans.Body) //nolint:errcheck // the client went away; nothing to do
}

type statusData struct {
	ChainTip struct {
		BlockHeight     int    `json:"blockHeight"`
		BlockHash       string `json:"blockHash"`
		IndexBlockHash  string `json:"indexBlockHash"`
		BurnBlockHeight int    `json:"burnBlockHeight"`
	} `json:"chainTip"`
	ReplicationLag *struct {
		Seconds    float64 `json:"seconds"`
		Bytes      int64   `json:"bytes"`
		PrimaryLSN string  `json:"primaryLsn"`
		ReplayLSN  string  `json:"replayLsn"`
	} `json:"replicationLag"`
}

// status reports the server version and the chain tip, for operators and health checks, and
// the replication lag when reads come from a replica.
func (a *API) status(w http.ResponseWriter, r *http.Request) {
	var d statusData
	if err := a.ops.run(r.Context(), "Status", nil, &d); err != nil {
		writeError(w, err)
		return
	}
	body := map[string]any{
		"server_version": a.opts.ServerVersion,
		"status":         "ready",
		"chain_tip": map[string]any{
			"block_height":      d.ChainTip.BlockHeight,
			"block_hash":        d.ChainTip.BlockHash,
			"index_block_hash":  d.ChainTip.IndexBlockHash,
			"burn_block_height": d.ChainTip.BurnBlockHeight,
		},
	}
	if lag := d.ReplicationLag; lag != nil {
		body["replication"] = map[string]any{
			"lag_seconds": lag.Seconds,
			"lag_bytes":   lag.Bytes,
			"primary_lsn": lag.PrimaryLSN,
			"replay_lsn":  lag.ReplayLSN,
		}
	}
	writeJSON(w, http.StatusOK, body)
}
