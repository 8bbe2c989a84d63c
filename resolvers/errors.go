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

// PresentError maps an error of the shared vocabulary to a GraphQL error whose extensions carry
// its code; internal errors are logged and shown without detail. Both executors use it, and the
// REST adapter maps the code to an HTTP status.
func PresentError(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var appErr *stxgraph.Error
	if errors.As(err, &appErr) {
		gqlErr.Message = appErr.Message
		setCode(gqlErr, appErr.Code)
		return gqlErr
	}
	var parsed *gqlerror.Error
	if errors.As(err, &parsed) && parsed.Extensions != nil && parsed.Extensions["code"] != nil {
		return gqlErr // parse/validation errors already carry gqlgen's code
	}
	if errors.Is(err, context.Canceled) {
		// The client went away (or its request ended): not a failure of ours.
		slog.DebugContext(ctx, "resolver canceled", "path", gqlErr.Path.String())
		gqlErr.Message = "the request was canceled"
		setCode(gqlErr, stxgraph.ECANCELED)
		return gqlErr
	}
	if db.Unavailable(err) {
		slog.WarnContext(ctx, "database unavailable", "path", gqlErr.Path.String(), "err", err)
		gqlErr.Message = "the database is unavailable; try again shortly"
		setCode(gqlErr, stxgraph.EUNAVAILABLE)
		return gqlErr
	}
	slog.ErrorContext(ctx, "resolver failed", "path", gqlErr.Path.String(), "err", err)
	gqlErr.Message = stxgraph.ErrorMessage(err)
	setCode(gqlErr, stxgraph.EINTERNAL)
	return gqlErr
}

func setCode(e *gqlerror.Error, code string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
}
