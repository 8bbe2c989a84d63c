package rest

import (
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/mux"
)

// Options configures the REST adapter.
type Options struct {
	// ServerVersion is reported by the status endpoint and the X-API-Version header.
	ServerVersion string
}

// API is the REST adapter.
type API struct {
	ops  *operations
	opts Options
}

// New validates the fixed operations against es and returns the adapter.
func New(es graphql.ExecutableSchema, opts Options) (*API, error) {
	ops, err := newOperations(es)
	if err != nil {
		return nil, err
	}
	return &API{ops: ops, opts: opts}, nil
}

// Register adds the REST routes to r.
func (a *API) Register(r *mux.Router) {
	r.HandleFunc("/extended", a.status).Methods(http.MethodGet)
	r.HandleFunc("/extended/v1/status", a.status).Methods(http.MethodGet)
}

type statusData struct {
	ChainTip struct {
		BlockHeight     int    `json:"blockHeight"`
		BlockHash       string `json:"blockHash"`
		IndexBlockHash  string `json:"indexBlockHash"`
		BurnBlockHeight int    `json:"burnBlockHeight"`
	} `json:"chainTip"`
}

// status reports the server version and the chain tip, for operators and health checks.
func (a *API) status(w http.ResponseWriter, r *http.Request) {
	var d statusData
	if err := a.ops.run(r.Context(), "status", nil, &d); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"server_version": a.opts.ServerVersion,
		"status":         "ready",
		"chain_tip": map[string]any{
			"block_height":      d.ChainTip.BlockHeight,
			"block_hash":        d.ChainTip.BlockHash,
			"index_block_hash":  d.ChainTip.IndexBlockHash,
			"burn_block_height": d.ChainTip.BurnBlockHeight,
		},
	})
}
