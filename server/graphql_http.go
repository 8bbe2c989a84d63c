package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/graph"
)

// GraphQL over HTTP, GET and POST with a JSON body, as gqlgen's transports serve it, but for how
// an answer is written: gqlgen encodes the whole response with encoding/json, which checks and
// compacts the answer's data again byte by byte, a tenth of the CPU of a large page. The data is
// the executor's own compact JSON, and is written as it is. Strings in it are JSON-escaped but not
// HTML-escaped (no \u003c for <), which encoding/json's second pass added.

// getTransport runs queries sent as GET parameters (query, operationName, variables,
// extensions).
type getTransport struct{}

func (getTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && r.Method == http.MethodGet
}

func (getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	contentType := responseContentType(r)
	w.Header().Set("Content-Type", contentType)
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		writeProtocolError(w, http.StatusBadRequest, "the query string could not be decoded: %v", err)
		return
	}
	params := &graphql.RawParams{Query: query.Get("query"), OperationName: query.Get("operationName"), Headers: r.Header}
	params.ReadTime.Start = graphql.Now()
	for _, p := range []struct {
		name string
		into *map[string]any
	}{{"variables", &params.Variables}, {"extensions", &params.Extensions}} {
		if v := query.Get(p.name); v != "" {
			if err := decodeJSON(strings.NewReader(v), p.into); err != nil {
				writeProtocolError(w, http.StatusBadRequest, "%s could not be decoded: %v", p.name, err)
				return
			}
		}
	}
	params.ReadTime.End = graphql.Now()
	run(w, r, exec, params, contentType, true)
}

// postTransport runs operations sent as a JSON body.
type postTransport struct{}

func (postTransport) Supports(r *http.Request) bool {
	if r.Header.Get("Upgrade") != "" || r.Method != http.MethodPost {
		return false
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == "application/json"
}

func (postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	contentType := responseContentType(r)
	w.Header().Set("Content-Type", contentType)
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeProtocolError(w, http.StatusBadRequest, "the request body could not be read: %v", err)
		return
	}
	params := &graphql.RawParams{}
	if err := decodeJSON(bytes.NewReader(body), params); err != nil {
		writeProtocolError(w, http.StatusBadRequest, "json request body could not be decoded: %v", err)
		return
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	run(w, r, exec, params, contentType, false)
}

// run runs the operation params names and writes its response; a GET may only run a query.
func run(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, params *graphql.RawParams, contentType string, queryOnly bool) {
	ctx := r.Context()
	opCtx, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		w.WriteHeader(operationErrorStatus(errs, contentType))
		writeResponse(w, exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs))
		return
	}
	if op := opCtx.Doc.Operations.ForName(opCtx.OperationName); queryOnly && op.Operation != ast.Query {
		writeProtocolError(w, http.StatusNotAcceptable, "GET requests only allow query operations")
		return
	}
	// writeResponse copies the answer's data into the response, so its buffer is used again.
	ctx, release := graph.LendResponseBuffer(ctx)
	defer release()
	responses, ctx := exec.DispatchOperation(ctx, opCtx)
	writeResponse(w, responses(ctx))
}

const (
	applicationJSON     = "application/json"
	graphQLResponseJSON = "application/graphql-response+json"
)

// responseContentType is the media type of the response the client accepts: application/json
// when it names no other, application/graphql-response+json when it asks for that first or names
// neither.
func responseContentType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return applicationJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*":
			return applicationJSON
		case applicationJSON, graphQLResponseJSON:
			return mediaType
		}
	}
	return graphQLResponseJSON
}

// operationErrorStatus is the status of a request whose operation could not be made (a syntax or
// validation error, say): a protocol error is the client's (400 under
// application/graphql-response+json, 422 under application/json), any other is answered 200.
func operationErrorStatus(errs gqlerror.List, contentType string) int {
	switch {
	case errcode.GetErrorKind(errs) != errcode.KindProtocol:
		return http.StatusOK
	case contentType == graphQLResponseJSON:
		return http.StatusBadRequest
	default:
		return http.StatusUnprocessableEntity
	}
}

func decodeJSON(r io.Reader, into any) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return dec.Decode(into)
}

// writeProtocolError answers a request that runs no operation with status and an error of the
// shared vocabulary (code invalid).
func writeProtocolError(w http.ResponseWriter, status int, format string, args ...any) {
	w.WriteHeader(status)
	writeResponse(w, &graphql.Response{Errors: gqlerror.List{codedError(stxgraph.EINVALID, format, args...)}})
}

// writeResponse writes r as encoding/json would, with its data as the executor wrote it. A
// response of an incremental delivery (label, path, hasNext) is encoded by encoding/json whole.
// The response goes out in one write with its length (unless a status was written already):
// written in parts, a response of more than a few kilobytes was chunked and sent in several.
func writeResponse(w http.ResponseWriter, r *graphql.Response) {
	if r.Label != "" || r.Path != nil || r.HasNext != nil {
		w.Write(mustMarshal(r))
		return
	}
	data := []byte(r.Data)
	if len(data) == 0 {
		data = []byte("null")
	}
	body := make([]byte, 0, len(data)+64)
	if len(r.Errors) > 0 {
		body = append(append(append(body, `{"errors":`...), mustMarshal(r.Errors)...), `,"data":`...)
	} else {
		body = append(body, `{"data":`...)
	}
	body = append(body, data...)
	if len(r.Extensions) > 0 {
		body = append(append(body, `,"extensions":`...), mustMarshal(r.Extensions)...)
	}
	body = append(body, '}')
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
