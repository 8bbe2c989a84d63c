package ingest

import (
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
)

// ordinalsHandler receives inscription_feed payloads. It answers 403 when no token is
// configured (the path is off), 401 to a request without the right bearer token, 400 to a
// malformed payload; a 500 makes the sender deliver the payload again.
func ordinalsHandler(store *db.Store, token string, bodyLimit int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if token == "" {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "inscription ingestion is disabled: no ingest token is configured"})
			return
		}
		given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(given), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ordinals"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong bearer token"})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bodyLimit))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "request body exceeds the limit of " + itoa(bodyLimit) + " bytes"})
				return
			}
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "reading request body: " + err.Error()})
			return
		}
		start := time.Now()
		p, err := DecodeOrdinals(body)
		var res OrdinalsResult
		if err == nil {
			res, err = ApplyOrdinals(r.Context(), store, p)
		}
		switch {
		case err == nil:
			slog.Debug("applied inscription payload", "applied", res.Applied, "rolled_back", res.RolledBack, "skipped", res.Skipped,
				"operations", res.Operations, "duration", time.Since(start))
			writeJSON(w, http.StatusOK, map[string]string{"result": "ok"})
		case stxgraph.ErrorCode(err) == stxgraph.EINVALID:
			slog.Warn("rejected inscription payload", "err", err)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		default:
			slog.Error("failed to apply inscription payload", "err", err)
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": strings.Join(strings.Fields(err.Error()), " ")})
		}
	}
}
