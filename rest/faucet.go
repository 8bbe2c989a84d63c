package rest

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
)

// maxFaucetBody bounds a faucet request body: it carries one address at most.
const maxFaucetBody = 16 << 10

// registerFaucets adds the POST faucet paths. Their bodies follow the reference's faucet
// routes, not the other paths: {"success":true,…} or {"error":"…","success":false}.
func (a *API) registerFaucets(r *mux.Router) {
	paths := map[string]http.HandlerFunc{
		"/extended/v1/faucets/stx": a.faucetSTX,
		"/extended/v1/faucets/btc": a.faucetBTC,
	}
	for p, h := range paths {
		handler := a.common(h, false)
		r.Handle(p, handler).Methods(http.MethodPost, http.MethodOptions)
		r.Handle(p+"/", handler).Methods(http.MethodPost, http.MethodOptions)
	}
}

func (a *API) faucetSTX(w http.ResponseWriter, r *http.Request) {
	stacking, err := query(r.URL.Query()).boolean("stacking")
	if err != nil {
		writeFaucetError(w, err, 0)
		return
	}
	addr, err := faucetAddress(r)
	if err != nil {
		writeFaucetError(w, err, 0)
		return
	}
	d, err := FaucetStx(r.Context(), a.ops, addr, &stacking, requestID(r))
	if err != nil {
		writeFaucetOpError(w, err)
		return
	}
	writeFaucetResult(w, faucetResult(d.FaucetStx), false)
}

func (a *API) faucetBTC(w http.ResponseWriter, r *http.Request) {
	addr, err := faucetAddress(r)
	if err != nil {
		writeFaucetError(w, err, 0)
		return
	}
	d, err := FaucetBtc(r.Context(), a.ops, addr, requestID(r))
	if err != nil {
		writeFaucetOpError(w, err)
		return
	}
	writeFaucetResult(w, faucetResult(d.FaucetBtc), true)
}

// faucetAddress reads the recipient from the query, else from a JSON or form body.
func faucetAddress(r *http.Request) (string, error) {
	if a := r.URL.Query().Get("address"); a != "" {
		return a, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxFaucetBody+1))
	if err != nil || len(body) > maxFaucetBody {
		return "", badRequest("request body is unreadable or too large")
	}
	var addr string
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case len(strings.TrimSpace(string(body))) == 0:
	case ct == "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return "", badRequest("request body is not a valid form")
		}
		addr = form.Get("address")
	default:
		var b struct {
			Address string `json:"address"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return "", badRequest(`request body must be JSON {"address": "…"}`)
		}
		addr = b.Address
	}
	if strings.TrimSpace(addr) == "" {
		return "", badRequest("address required")
	}
	return addr, nil
}

// requestIDHeader names a request for safe retries: a repeat with the same value is answered
// with the first one's payout (the IETF Idempotency-Key header).
const requestIDHeader = "Idempotency-Key"

// requestID is the request's Idempotency-Key (nil when it has none).
func requestID(r *http.Request) *string {
	if id := r.Header.Get(requestIDHeader); id != "" {
		return &id
	}
	return nil
}

// faucetResult is a faucet mutation's payout; both mutations' generated results convert to it.
type faucetResult struct {
	Success     bool
	TxId, TxRaw string
}

// writeFaucetResult writes a payout; the BTC body also has the keys the reference's clients
// read (txid, raw_tx).
func writeFaucetResult(w http.ResponseWriter, res faucetResult, btc bool) {
	if !res.Success {
		writeFaucetError(w, stxgraph.Errorf(stxgraph.EINTERNAL, "Faucet request failed, please try again later"), 0)
		return
	}
	body := map[string]any{"success": true, "txId": res.TxId, "txRaw": res.TxRaw}
	if btc {
		body["txid"], body["raw_tx"] = res.TxId, res.TxRaw
	}
	writeJSON(w, http.StatusOK, body)
}

// writeFaucetOpError writes a faucet operation's error; a rate-limited request carries
// Retry-After, from the error's extension.
func writeFaucetOpError(w http.ResponseWriter, err error) {
	var retry int
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) {
		retry, _ = gqlErr.Extensions[resolvers.RetryAfterExtension].(int)
	}
	writeFaucetError(w, err, retry)
}

// writeFaucetError writes the faucets' error shape {"error","success":false}.
func writeFaucetError(w http.ResponseWriter, err error, retryAfter int) {
	status := statusOf(stxgraph.ErrorCode(err))
	if status == http.StatusTooManyRequests && retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	writeJSON(w, status, map[string]any{"error": stxgraph.ErrorMessage(err), "success": false})
}
