// Package stxgraph holds the vocabulary every layer shares: the error codes that the GraphQL
// error presenter and the REST adapter each map once (to GraphQL error extensions and to HTTP
// status codes).
package stxgraph

import (
	"errors"
	"fmt"
)

// Error codes. They describe what went wrong for the caller, not where.
const (
	EINVALID     = "invalid"     // bad input: 400
	ENOTFOUND    = "not_found"   // no such resource: 404
	EUNAVAILABLE = "unavailable" // a backing service is down: 503
	EFORBIDDEN   = "forbidden"   // the operation is switched off or not configured: 403
	ERATELIMIT   = "rate_limited"
	ECONFLICT    = "conflict" // the same request is being handled by another call: 409
	EGONE        = "gone"     // a disabled (deprecated) endpoint: 410
	ECANCELED    = "canceled" // the client went away before its answer: 499, which nobody receives
	EINTERNAL    = "internal" // a bug or an unexpected failure: 500
)

// Error is an application error with a code and a message safe to show to users.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EINTERNAL when err is not an *Error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the user-facing message of err; internal errors get a generic message so
// that no internal detail leaks.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
