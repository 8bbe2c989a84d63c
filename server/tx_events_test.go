package server_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/server"
)

// eventReads records the SQL of the statements that read transactions' events.
type eventReads struct {
	mu      sync.Mutex
	queries []string
}

func (r *eventReads) observe(_ context.Context, s db.Statement) {
	if strings.Contains(s.Query, "FROM stx_events e") {
		r.mu.Lock()
		r.queries = append(r.queries, s.Query)
		r.mu.Unlock()
	}
}

func (r *eventReads) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queries
	r.queries = nil
	return q
}

// A transaction's events are read with the columns their selection needs: a selection of their
// kind and position alone (however it is written) reads no kind's own columns, and lists the
// same events, in the same order, as a selection that reads them all (replayed chain data with
// prints, locks and transfers).
func TestTransactionEventsReadForTheirSelection(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	reads := &eventReads{}
	a.store.Observe(reads.observe)

	page := func(selection string) string {
		q := `{ blocksConnection(first: 40) { nodes { transactions(first: 20) { nodes { events(limit: 10) { ` + selection + ` } } } } } }`
		if strings.Contains(selection, "...Position") {
			q += ` fragment Position on Event { eventIndex txId }`
		}
		return q
	}
	full := `__typename eventIndex eventType txId
		... on SmartContractLogEvent { contractLog { topic value { repr } } }
		... on StxAssetEvent { asset { amount sender recipient } }
		... on StxLockEvent { stxLockEvent { lockedAmount } }`
	tests := []struct {
		name, selection string
		positionsOnly   bool
	}{
		{"kind and position", `__typename eventIndex eventType txId`, true},
		{"through fragments", `__typename ...Position ... on StxAssetEvent { eventType }`, true},
		{"with the emitting transaction", `__typename eventIndex txId transaction { txId }`, true},
		{"one kind's own field", `__typename eventIndex eventType txId ... on StxAssetEvent { asset { amount } }`, false},
		{"every kind's fields", full, false},
	}
	want := positions(t, a, page(full))
	if len(want) < 20 {
		t.Fatalf("the fixture's blocks list %d events, expected at least 20", len(want))
	}
	reads.take()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := positions(t, a, page(tc.selection))
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("events differ from those read whole:\n got %v\nwant %v", got, want)
			}
			qs := reads.take()
			if len(qs) == 0 {
				t.Fatal("no statement read the events")
			}
			for _, q := range qs {
				if readsAll := strings.Contains(q, "e.amount"); readsAll == tc.positionsOnly {
					t.Errorf("statement reads the kinds' own columns: %v, expected %v:\n%.400s", readsAll, !tc.positionsOnly, q)
				}
			}
		})
	}
}

// positions lists the events of a blocks page as "txid:index:type", in list order.
func positions(t *testing.T, a *api, q string) []string {
	t.Helper()
	data, _ := a.mustQuery(t, q, nil)
	var d struct {
		BlocksConnection struct {
			Nodes []struct {
				Transactions struct {
					Nodes []struct {
						Events []struct {
							Typename   string `json:"__typename"`
							EventIndex int
							TxID       string
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range d.BlocksConnection.Nodes {
		for _, tx := range b.Transactions.Nodes {
			for _, e := range tx.Events {
				out = append(out, e.TxID+":"+strconv.Itoa(e.EventIndex)+":"+e.Typename)
			}
		}
	}
	return out
}
