package ingest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// captureLog sends the default logger's records to the returned function's result until the
// test ends. The test must not be parallel: the default logger is global.
func captureLog(t *testing.T) func() []slog.Record {
	h := &recordHandler{}
	prev := slog.Default()
	slog.SetDefault(slog.New(h))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return h.records
}

type recordHandler struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }

func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}

func (h *recordHandler) records() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]slog.Record(nil), h.recs...)
}

// chainWarnings are the chain-id warnings among recs, each as its attributes.
func chainWarnings(recs []slog.Record) []map[string]string {
	var out []map[string]string
	for _, r := range recs {
		if r.Level != slog.LevelWarn || !strings.Contains(r.Message, "another network") {
			continue
		}
		attrs := map[string]string{}
		r.Attrs(func(a slog.Attr) bool {
			attrs[a.Key] = a.Value.String()
			return true
		})
		out = append(out, attrs)
	}
	return out
}

// chainIDMessages are a /new_block message of a testnet fixture with signed
// transactions and a /new_mempool_tx message of two testnet transactions.
func chainIDMessages(t *testing.T) (block, mempool Message) {
	for _, rec := range fixtureRecords(t, "epoch-3-transition") {
		mined := transferIn(t, rec)
		if mined == nil {
			continue
		}
		if mined.ChainID != tx.ChainIDTestnet {
			t.Fatalf("fixture transaction on chain 0x%08x, want testnet", mined.ChainID)
		}
		later := *mined
		later.Origin.Nonce += 1000
		raws, _ := json.Marshal([]string{db.Hex(mined.Encode()), db.Hex(later.Encode())})
		return Message{Path: rec.Path, Payload: rec.Payload, ReceivedAt: rec.ReceivedAt},
			Message{Path: PathNewMempoolTx, Payload: raws, ReceivedAt: rec.ReceivedAt}
	}
	t.Fatal("the fixture mines no token transfer")
	return
}

// A message with transactions of another chain than the configured one logs one warning
// naming both ids, and still decodes; the right chain id, or none configured, logs nothing.
func TestChainIDMismatchWarns(t *testing.T) {
	block, mempool := chainIDMessages(t)
	for _, m := range []Message{block, mempool} {
		for _, tc := range []struct {
			chainID uint32
			warn    bool
		}{{0, false}, {tx.ChainIDTestnet, false}, {tx.ChainIDMainnet, true}} {
			logs := captureLog(t)
			m.ChainID = tc.chainID
			if _, err := decode(m); err != nil {
				t.Fatalf("%s with chain id %#x: %v", m.Path, tc.chainID, err)
			}
			ws := chainWarnings(logs())
			if !tc.warn {
				if len(ws) != 0 {
					t.Errorf("%s with chain id %#x warned: %v", m.Path, tc.chainID, ws)
				}
				continue
			}
			if len(ws) != 1 {
				t.Fatalf("%s with chain id %#x: %d warnings %v, want 1", m.Path, tc.chainID, len(ws), ws)
			}
			if w := ws[0]; w["path"] != m.Path || w["tx_chain_id"] != "0x80000000" || w["configured_chain_id"] != "0x00000001" {
				t.Errorf("%s: warning %v", m.Path, w)
			}
		}
	}
}

// The observer passes Options.ChainID on and applies a mismatching message all the same.
func TestServerChainIDMismatchApplies(t *testing.T) {
	store := newStore(t)
	srv := httptest.NewServer(NewServer(store, Options{ChainID: tx.ChainIDMainnet}))
	defer srv.Close()
	recs := fixtureRecords(t, "mocknet")
	logs := captureLog(t)
	for _, rec := range recs[:3] {
		if rec.Path != PathNewBlock && rec.Path != PathNewBurnBlock {
			continue
		}
		resp, err := http.Post(srv.URL+rec.Path, "application/json", strings.NewReader(string(rec.Payload)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", rec.Path, resp.StatusCode)
		}
	}
	if ws := chainWarnings(logs()); len(ws) == 0 || ws[0]["configured_chain_id"] != "0x00000001" {
		t.Errorf("warnings %v, want the boot block's", ws)
	}
}
