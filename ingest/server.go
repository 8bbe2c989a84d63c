package ingest

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
)

// DefaultBodyLimit is the reference's event body limit (STACKS_CORE_EVENT_BODY_LIMIT).
const DefaultBodyLimit = 500 << 20

// Options configure the event-observer server.
type Options struct {
	// BodyLimit caps a message's size in bytes (0 means DefaultBodyLimit).
	BodyLimit int64
	// StoreRawEvents keeps every applied message in the request log for export and replay.
	StoreRawEvents bool
	// ChainID, when not 0, is the network's chain id: a /new_block or /new_mempool_tx message
	// with transactions of another chain logs a warning (a misconfigured node or observer) and
	// is applied all the same, as rejecting it would make the node retry it forever.
	ChainID uint32
	// OrdinalsToken is the bearer token an ordinals indexer must send with inscription
	// payloads on PathOrdinals; empty turns that path off (403).
	OrdinalsToken string
	// DemoDatabase is set when the database holds the generated demo chain: every message is
	// refused (409), so that a real chain never mixes with generated data.
	DemoDatabase bool
}

// demoRefusal is the error a stacks-node gets from a demo database.
const demoRefusal = "this stxgraph database holds a generated demo chain (stxgraph serve --demo) and takes no " +
	"stacks-node events; run stxgraph for this node with a database of its own (--database-url)"

// NewServer returns the event-observer HTTP handler a stacks-node posts to. Block and
// burn-block messages are applied strictly one at a time in arrival order; mempool, microblock
// and other messages one at a time on a second queue.
func NewServer(store *db.Store, opts Options) http.Handler {
	return newServer(NewIngester(store), opts)
}

type server struct {
	in        *Ingester
	opts      Options
	primary   sync.Mutex // blocks and burn blocks
	secondary sync.Mutex // everything else
}

func newServer(in *Ingester, opts Options) http.Handler {
	if opts.BodyLimit <= 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	s := &server{in: in, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "msg": "API event server listening for core-node POST messages"})
	})
	for path := range handlers {
		mux.HandleFunc("POST "+path, s.handle)
	}
	mux.HandleFunc("POST "+PathOrdinals, ordinalsHandler(in.store, opts.OrdinalsToken, opts.BodyLimit))
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no route handler for " + r.URL.Path})
	})
	return mux
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	if s.opts.DemoDatabase {
		slog.Warn("refused a stacks-node message: the database holds the demo chain", "path", r.URL.Path)
		writeJSON(w, http.StatusConflict, map[string]string{"error": demoRefusal})
		return
	}
	received := time.Now().UTC()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.BodyLimit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "request body exceeds the limit of " + itoa(s.opts.BodyLimit) + " bytes"})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "reading request body: " + err.Error()})
		return
	}
	queue := &s.secondary
	if r.URL.Path == PathNewBlock || r.URL.Path == PathNewBurnBlock {
		queue = &s.primary
	}
	queue.Lock()
	defer queue.Unlock()
	start := time.Now()
	_, err = s.in.Apply(r.Context(), Message{Path: r.URL.Path, Payload: body, ReceivedAt: received, LogRaw: s.opts.StoreRawEvents, ChainID: s.opts.ChainID})
	switch code := stxgraph.ErrorCode(err); {
	case err == nil:
		slog.Debug("applied event", "path", r.URL.Path, "bytes", len(body), "duration", time.Since(start))
		writeJSON(w, http.StatusOK, map[string]string{"result": "ok"})
	case code == stxgraph.EINVALID:
		slog.Warn("rejected malformed event", "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	default:
		// 500 makes the node deliver the message again.
		slog.Error("failed to apply event", "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": strings.Join(strings.Fields(err.Error()), " ")})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
