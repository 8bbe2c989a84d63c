package node_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/stacks/node"
)

// answer serves one fixed answer for every request.
func answer(t *testing.T, status int, ctype, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // test server
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		io.WriteString(w, body) //nolint:errcheck // test server
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBroadcastAnswers(t *testing.T) {
	t.Parallel()
	const txid = "1b8576de3ee008ad048f6dcee646c88b88733a820595ea2893f665b906348e3e"
	for _, tc := range []struct {
		status        int
		ctype, body   string
		wantTxID      string
		wantReason    string
		wantExpected  uint64
		wantNodeError bool
	}{
		{200, "application/json", `"` + txid + `"`, txid, "", 0, false},
		{400, "application/json", `{"error":"transaction rejected","reason":"BadNonce","reason_data":{"expected":3,"actual":4,"is_origin":true,"principal":"ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH"},"txid":"` + txid + `"}`, "", "BadNonce", 3, false},
		{400, "application/json", `{"error":"transaction rejected","reason":"ConflictingNonceInMempool","txid":"` + txid + `"}`, "", "ConflictingNonceInMempool", 0, false},
		{400, "application/json", `{"error":"transaction rejected","reason":"NotEnoughFunds","reason_data":{"expected":"0x1dcd65b4","actual":"0x0"}}`, "", "NotEnoughFunds", 0, false},
		{400, "text/plain", "Failed to deserialize posted transaction: bad bytes", "", "Deserialization", 0, false},
		{500, "text/plain", "oops", "", "", 0, true},
		{200, "application/json", `"not a txid"`, "", "", 0, true},
	} {
		srv := answer(t, tc.status, tc.ctype, tc.body)
		got, err := node.New(srv.URL, nil).Broadcast(context.Background(), []byte{1, 2, 3})
		var rej *node.Rejection
		var nerr *node.Error
		switch {
		case tc.wantTxID != "":
			if err != nil || got != tc.wantTxID {
				t.Errorf("%s: %q %v", tc.body, got, err)
			}
		case tc.wantReason != "":
			if !errors.As(err, &rej) || rej.Reason != tc.wantReason {
				t.Errorf("%s: %v, want rejection %s", tc.body, err, tc.wantReason)
			} else if exp, ok := rej.Expected(); tc.wantExpected != 0 && (!ok || exp != tc.wantExpected) {
				t.Errorf("%s: expected %d %v", tc.body, exp, ok)
			}
		case tc.wantNodeError:
			if !errors.As(err, &nerr) {
				t.Errorf("%s: %v, want *node.Error", tc.body, err)
			}
		}
		if err != nil && strings.Contains(err.Error(), strings.TrimPrefix(srv.URL, "http://")) {
			t.Errorf("error %q names the node", err)
		}
	}
}

func TestReads(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/accounts/{p}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("proof") != "0" {
			t.Errorf("accounts read without proof=0")
		}
		io.WriteString(w, `{"balance":"0x0000000000000000000000000007a120","locked":"0x00000000000000000000000000000001","unlock_height":126,"nonce":2867}`) //nolint:errcheck // test
	})
	mux.HandleFunc("GET /v2/fees/transfer", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "3") }) //nolint:errcheck // test
	mux.HandleFunc("GET /v2/pox", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"min_amount_ustx":5,"next_cycle":{"id":3,"min_threshold_ustx":70000000000},"rejection_fraction":null,"epochs":[{"epoch_id":"Epoch30"}]}`) //nolint:errcheck // test
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := node.New(srv.URL, nil)
	ctx := context.Background()
	a, err := c.Account(ctx, "ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH")
	if err != nil || a.Nonce != 2867 || a.Balance.Int64() != 500000 || a.Locked.Int64() != 1 {
		t.Errorf("account %+v %v", a, err)
	}
	if rate, err := c.TransferFeeRate(ctx); err != nil || rate != 3 {
		t.Errorf("fee rate %d %v", rate, err)
	}
	if min, err := c.StackingMinimum(ctx); err != nil || min != 70000000000 {
		t.Errorf("stacking minimum %d %v", min, err)
	}
}

func TestUnreachableAndSlow(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		url     string
		timeout bool
	}{{slow.URL, true}, {closed.URL, false}} {
		c := node.New(tc.url, &http.Client{Timeout: 200 * time.Millisecond})
		_, err := c.TransferFeeRate(context.Background())
		var nerr *node.Error
		if !errors.As(err, &nerr) || !nerr.Unreachable() || nerr.Timeout != tc.timeout {
			t.Errorf("%v (timeout %v)", err, tc.timeout)
		}
		if strings.Contains(err.Error(), strings.TrimPrefix(tc.url, "http://")) {
			t.Errorf("error %q names the node", err)
		}
	}
}
