package rest

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
)

// satsPerBTC converts the satoshis the operation reads to the BTC the path answers.
const satsPerBTC = 1e8

// registerBTCBalance adds GET /extended/v1/faucets/btc/{address}: the balance of a Bitcoin
// address on the BTC faucet's node, {"balance": <BTC>}, with the faucets' error shape. It reads
// the Bitcoin node, not the chain, so its answers are not kept.
func (a *API) registerBTCBalance(r *mux.Router) {
	h := a.common(http.HandlerFunc(a.btcBalance), false)
	for _, p := range []string{"/extended/v1/faucets/btc/{address}", "/extended/v1/faucets/btc/{address}/"} {
		r.Handle(p, h).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)
	}
}

func (a *API) btcBalance(w http.ResponseWriter, r *http.Request) {
	d, err := FaucetBtcBalance(r.Context(), a.ops, mux.Vars(r)["address"])
	if err != nil {
		writeFaucetError(w, err, 0)
		return
	}
	sats, err := strconv.ParseInt(d.FaucetBtcBalance.Satoshis, 10, 64)
	if err != nil {
		writeFaucetError(w, stxgraph.Errorf(stxgraph.EINTERNAL, "BTC balance read failed"), 0)
		return
	}
	// A float64 encodes as JavaScript writes numbers, as the reference's balance in BTC is.
	writeJSON(w, http.StatusOK, map[string]any{"balance": float64(sats) / satsPerBTC})
}
