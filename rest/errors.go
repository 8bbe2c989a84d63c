package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/stxgraph/stxgraph"
)

// statusOf maps the shared error vocabulary to HTTP status codes: the one place REST does it.
// statusClientClosed is the status logged for a request whose client went away before its
// answer (nginx's 499): no client receives it, and it is no server failure.
const statusClientClosed = 499

func statusOf(code string) int {
	switch code {
	case stxgraph.EINVALID:
		return http.StatusBadRequest
	case stxgraph.ENOTFOUND:
		return http.StatusNotFound
	case stxgraph.EFORBIDDEN:
		return http.StatusForbidden
	case stxgraph.ERATELIMIT:
		return http.StatusTooManyRequests
	case stxgraph.EGONE:
		return http.StatusGone
	case stxgraph.ECONFLICT:
		return http.StatusConflict
	case stxgraph.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case stxgraph.ECANCELED:
		return statusClientClosed
	default:
		return http.StatusInternalServerError
	}
}

// writeError writes err in the reference's v8 shape {"statusCode","error","message"}.
func writeError(w http.ResponseWriter, err error) {
	status := statusOf(stxgraph.ErrorCode(err))
	body := errorBody{StatusCode: status, Error: http.StatusText(status), Message: stxgraph.ErrorMessage(err)}
	var v *validationError
	if errors.As(err, &v) {
		body.Code = v.code
		if v.code == codeBadURL {
			writeJSON(w, status, badURLBody{Error: body.Error, Code: body.Code, Message: body.Message, StatusCode: status})
			return
		}
	}
	writeJSON(w, status, body)
}

// errorBody is the reference's error answer, its members in its order.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Code       string `json:"code,omitempty"`
	Error      string `json:"error"`
	Message    string `json:"message"`
}

// badURLBody is the same answer from the reference's router, which orders the members otherwise.
type badURLBody struct {
	Error      string `json:"error"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	StatusCode int    `json:"statusCode"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	// The reference writes <, > and & as they are; Go's default escapes them for HTML.
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) //nolint:errcheck // the client went away; nothing to do
}

// NotFound answers a path no route serves as the reference's router does, members in its order.
func NotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-API-Version")
		h.Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusNotFound, routeNotFoundBody{
			Message: fmt.Sprintf("Route %s:%s not found", r.Method, r.URL.Path), Error: http.StatusText(http.StatusNotFound), StatusCode: http.StatusNotFound,
		})
	})
}

// routeNotFoundBody is the reference router's answer for a path no route serves.
type routeNotFoundBody struct {
	Message    string `json:"message"`
	Error      string `json:"error"`
	StatusCode int    `json:"statusCode"`
}

// WriteStatus writes message in the error shape with an HTTP status that no error code names
// (413 for an oversized request).
func WriteStatus(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{StatusCode: status, Error: http.StatusText(status), Message: message})
}
