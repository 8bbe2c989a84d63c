package resolvers

import (
	"context"
	"errors"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
)

// PresentError maps an error to a GraphQL error that carries it as an *stxgraph.Error: its code
// in the extensions, and the error itself behind Unwrap, where the REST adapter reads it with
// errors.As. Internal errors are logged and shown without detail.
func PresentError(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var parsed *gqlerror.Error
	if errors.As(err, &parsed) && parsed.Extensions != nil && parsed.Extensions["code"] != nil {
		return gqlErr // parse/validation errors already carry gqlgen's code
	}
	appErr := applicationError(ctx, gqlErr.Path.String(), err)
	gqlErr.Message = appErr.Message
	gqlErr.Err = appErr
	if gqlErr.Extensions == nil {
		gqlErr.Extensions = map[string]any{}
	}
	gqlErr.Extensions["code"] = appErr.Code
	return gqlErr
}

// applicationError is err in the shared vocabulary.
func applicationError(ctx context.Context, path string, err error) *stxgraph.Error {
	var appErr *stxgraph.Error
	var intErr *graphql.IntegerError
	switch {
	case errors.As(err, &appErr):
		return appErr
	case errors.As(err, &intErr): // an argument's integer beyond its type's range
		return stxgraph.Errorf(stxgraph.EINVALID, "%s", intErr.Message)
	case errors.Is(err, context.Canceled):
		// The client went away (or its request ended): not a failure of ours.
		slog.DebugContext(ctx, "resolver canceled", "path", path)
		return stxgraph.Errorf(stxgraph.ECANCELED, "the request was canceled")
	case db.Unavailable(err):
		slog.WarnContext(ctx, "database unavailable", "path", path, "err", err)
		return stxgraph.Errorf(stxgraph.EUNAVAILABLE, "the database is unavailable; try again shortly")
	}
	slog.ErrorContext(ctx, "resolver failed", "path", path, "err", err)
	return &stxgraph.Error{Code: stxgraph.EINTERNAL, Message: stxgraph.ErrorMessage(err)}
}
