package rest

import (
	_ "embed"
	"net/http"
)

// openAPIDocument describes the REST paths served here (kept in step with them by a test).
//
//go:embed openapi.json
var openAPIDocument []byte

func openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPIDocument) //nolint:errcheck // client gone
}
