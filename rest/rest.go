// Package rest serves the legacy REST paths of the Stacks Blockchain API. Each route runs fixed
// GraphQL operations in-process (parsed and validated once, at start-up) through the functions
// genqlient generates from them (operations_gen.go), and maps their typed data to response
// structs carrying the reference's JSON names. REST adds no SQL of its own.
package rest

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	genql "github.com/Khan/genqlient/graphql"
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

// route is one REST path: how to read its parameters into the read it asks for, the parts of
// the chain state that read depends on, and how its errors are written.
type route struct {
	path       string
	deprecated bool
	// parse reads the request's parameters.
	parse func(r *http.Request) (read, error)
	// pathTag is the ETag the reference has set when its handler refuses or redirects a request
	// that passed the request schema: the route's tag over the path's parameters alone (nil for
	// a route without one, or whose tag needs more).
	pathTag func(ctx context.Context, c genql.Client, r *http.Request) (string, error)
	// reads are the parts of the chain state the answer depends on, whose versions key it in
	// the answer cache (every part when none is named).
	reads respcache.Parts
	// redirect, when set, may send the request elsewhere before anything runs.
	redirect func(r *http.Request) (string, bool)
	// writeError writes the route's errors (the reference's v8 shape, writeError, when nil).
	writeError func(w http.ResponseWriter, err error)
}

// pendingRead is a read whose answer reads of the mempool only the pending state of some
// principals: it is kept across the mempool changes that name none of them.
type pendingRead interface {
	// pending names them, as notices.Notice.Pending does.
	pending() []string
}

// read is one request's parameters, ready to run the route's fixed operations.
type read interface {
	// etag reads the answer's ETag alone, for If-None-Match ("" when the route has none).
	etag(ctx context.Context, c genql.Client) (string, error)
	// answer runs the route's operation: the JSON body and its ETag (the ETag alone when the
	// read fails after it is known).
	answer(ctx context.Context, c genql.Client) (body []byte, etag string, err error)
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

// The values of the headers every REST response carries. Each has capacity one, so a later Add
// to the same header copies it instead of writing into the shared array.
var (
	anyOrigin      = []string{"*"}
	exposedHeaders = []string{"X-API-Version"}
	noStore        = []string{"no-store"}
)

const deprecationNotice = "See https://docs.hiro.so/stacks/api for more information"

// common adds what every REST response carries: open CORS, the API version, no caching unless
// the route sets an ETag, and the deprecation warning (or 410 when deprecated paths are off).
func (a *API) common(next http.Handler, deprecated bool) http.Handler {
	version := []string{a.opts.ServerVersion}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every response carries these, so their values are shared rather than made per request
		// (the keys in canonical form, as Header.Set would write them).
		h := w.Header()
		h["Access-Control-Allow-Origin"] = anyOrigin
		h["Access-Control-Expose-Headers"] = exposedHeaders
		h["X-Api-Version"] = version
		h["Cache-Control"] = noStore
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
	parts := rt.reads
	if parts == 0 {
		parts = respcache.Chain | respcache.Mempool | respcache.Brc20
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
		rd, err := rt.parse(r)
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
		reads := respcache.Reads{Parts: parts}
		if p, ok := rd.(pendingRead); ok {
			reads.Pending = p.pending()
		}
		at, _ := a.opts.Answers.Version(reads)
		var failed error
		ans, _ := a.opts.Answers.Do(r.Context(), key, reads, at, func() (respcache.Answer, bool) {
			var ans respcache.Answer
			ans, failed = a.answer(w, r, rd)
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

// handlerTag is the route's pathTag for r ("" when it has none, or it cannot be read).
func (a *API) handlerTag(r *http.Request, rt route) string {
	if rt.pathTag == nil {
		return ""
	}
	tag, err := rt.pathTag(r.Context(), a.ops, r)
	if err != nil {
		return ""
	}
	return tag
}

// answer computes rd's answer to r; with an If-None-Match naming the current state it answers
// 304 itself and returns no answer.
func (a *API) answer(w http.ResponseWriter, r *http.Request, rd read) (respcache.Answer, error) {
	if r.Header.Get("If-None-Match") != "" {
		tag, err := rd.etag(r.Context(), a.ops)
		if err != nil {
			return respcache.Answer{}, err
		}
		if notModified(r, tag) {
			setETag(w, tag)
			w.WriteHeader(http.StatusNotModified)
			return respcache.Answer{}, nil
		}
	}
	body, tag, err := rd.answer(r.Context(), a.ops)
	if err != nil {
		return respcache.Answer{ETag: tag}, err
	}
	return respcache.Answer{Body: body, ETag: tag}, nil
}

func writeAnswer(w http.ResponseWriter, r *http.Request, ans respcache.Answer) {
	setETag(w, ans.ETag)
	if ans.ETag != "" && notModified(r, ans.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	// The whole body is at hand: with its length the server writes headers and body in one go
	// instead of chunking a large one and writing its end apart.
	w.Header().Set("Content-Length", strconv.Itoa(len(ans.Body)))
	w.WriteHeader(http.StatusOK)
	w.Write(ans.Body) //nolint:errcheck // the client went away; nothing to do
}

// statusBody is the status endpoint's answer, its members in alphabetical order as the
// reference's.
type statusBody struct {
	ChainTip struct {
		BlockHash       string `json:"block_hash"`
		BlockHeight     int    `json:"block_height"`
		BurnBlockHeight int    `json:"burn_block_height"`
		IndexBlockHash  string `json:"index_block_hash"`
	} `json:"chain_tip"`
	Replication   *replicationBody `json:"replication,omitempty"`
	ServerVersion string           `json:"server_version"`
	Status        string           `json:"status"`
}

type replicationBody struct {
	LagBytes   int     `json:"lag_bytes"`
	LagSeconds float64 `json:"lag_seconds"`
	PrimaryLSN string  `json:"primary_lsn"`
	ReplayLSN  string  `json:"replay_lsn"`
}

// status reports the server version and the chain tip, for operators and health checks, and
// the replication lag when reads come from a replica.
func (a *API) status(w http.ResponseWriter, r *http.Request) {
	d, err := Status(r.Context(), a.ops)
	if err != nil {
		writeError(w, err)
		return
	}
	body := statusBody{ServerVersion: a.opts.ServerVersion, Status: "ready"}
	tip := &body.ChainTip
	tip.BlockHash, tip.BlockHeight, tip.BurnBlockHeight, tip.IndexBlockHash = d.ChainTip.BlockHash, d.ChainTip.BlockHeight, d.ChainTip.BurnBlockHeight, d.ChainTip.IndexBlockHash
	if lag := d.ReplicationLag; lag != nil {
		body.Replication = &replicationBody{lag.Bytes, lag.Seconds, lag.PrimaryLsn, lag.ReplayLsn}
	}
	writeJSON(w, http.StatusOK, body)
}
