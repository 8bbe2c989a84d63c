package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/99designs/gqlgen/graphql"

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
	return positionsOf(t, data)
}

// positionsOf lists the events of a blocks page's answer as "txid:index:type", in list order:
// those of its transactions' nodes, or else of their edges' node.
func positionsOf(t *testing.T, data []byte) []string {
	t.Helper()
	type tx struct {
		Events []struct {
			Typename   string `json:"__typename"`
			EventIndex int
			TxID       string
		}
	}
	var d struct {
		BlocksConnection struct {
			Nodes []struct {
				Transactions struct {
					Nodes []tx
					Edges []struct{ Node tx }
				}
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, b := range d.BlocksConnection.Nodes {
		txs := b.Transactions.Nodes
		for _, e := range b.Transactions.Edges {
			txs = append(txs, e.Node)
		}
		for _, tx := range txs {
			for _, e := range tx.Events {
				out = append(out, e.TxID+":"+strconv.Itoa(e.EventIndex)+":"+e.Typename)
			}
		}
	}
	return out
}

// The events of a page of transactions are read in the page's batch when every events field of
// its transactions asks for one window, and by the transactions' own fields otherwise (a
// statement per window); the same events either way (replayed chain data with prints, locks
// and transfers).
func TestPageEventsReadWithThePage(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	var mu sync.Mutex
	var readBy []string // the field whose resolution read events, statement by statement
	a.store.Observe(func(ctx context.Context, s db.Statement) {
		if strings.Contains(s.Query, "FROM stx_events e") {
			mu.Lock()
			readBy = append(readBy, graphql.GetFieldContext(ctx).Field.Name)
			mu.Unlock()
		}
	})
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		r := readBy
		readBy = nil
		return r
	}

	const fields = `__typename eventIndex txId`
	blocks := func(events string) string {
		return `{ blocksConnection(first: 40) { nodes { transactions(first: 20) { nodes { ` + events + ` } } } } }`
	}
	tests := []struct {
		name, query string
		vars        map[string]any
		readBy      []string
	}{
		{"one window", blocks(`events(limit: 10) { ` + fields + ` }`), nil, []string{"transactions"}},
		{"one window, asked twice", blocks(`events(limit: 10) { ` + fields + ` } ... on Transaction { events(limit: 10) { eventIndex } }`), nil, []string{"transactions"}},
		{"through edges", `{ blocksConnection(first: 40) { nodes { transactions(first: 20) { edges { node { events(limit: 10) { ` + fields + ` } } } } } } }`, nil, []string{"transactions"}},
		{"in variables", `query($limit: Int, $offset: Int) ` + blocks(`events(limit: $limit, offset: $offset) { `+fields+` }`), map[string]any{"limit": 10, "offset": 0}, []string{"transactions"}},
		{"two windows", blocks(`events(limit: 10) { ` + fields + ` } first: events(limit: 1) { eventIndex }`), nil, []string{"events", "events"}},
	}
	want := positions(t, a, blocks(`events(limit: 10) { `+fields+` } first: events(limit: 1) { eventIndex }`))
	if len(want) < 20 {
		t.Fatalf("the fixture's blocks list %d events, expected at least 20", len(want))
	}
	take()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := a.mustQuery(t, tc.query, tc.vars)
			got := positionsOf(t, data)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("events differ from those each transaction reads:\n got %v\nwant %v", got, want)
			}
			if by := take(); !slices.Equal(by, tc.readBy) {
				t.Errorf("events read by %v, want a statement by each of %v", by, tc.readBy)
			}
		})
	}
}

// A lookup of transactions by id reads the events its found transactions ask for with them, in
// one window, and the same events as each transaction reading its own.
func TestLookupEventsReadWithTheLookup(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	data, _ := a.mustQuery(t, `{ blocksConnection(first: 40) { nodes { transactions(first: 20) { nodes { txId eventCount } } } } }`, nil)
	var page struct {
		BlocksConnection struct {
			Nodes []struct {
				Transactions struct {
					Nodes []struct {
						TxID       string
						EventCount int
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range page.BlocksConnection.Nodes {
		for _, tx := range b.Transactions.Nodes {
			if tx.EventCount > 0 && len(ids) < 10 {
				ids = append(ids, strconv.Quote(tx.TxID))
			}
		}
	}
	if len(ids) < 5 {
		t.Fatalf("the fixture has %d transactions with events, expected at least 5", len(ids))
	}
	var mu sync.Mutex
	var readBy []string
	a.store.Observe(func(ctx context.Context, s db.Statement) {
		if strings.Contains(s.Query, "FROM stx_events e") {
			mu.Lock()
			readBy = append(readBy, graphql.GetFieldContext(ctx).Field.Name)
			mu.Unlock()
		}
	})
	lookup := func(events string) (string, []string) {
		data, _ := a.mustQuery(t, `{ transactionsByIds(ids: [`+strings.Join(ids, ",")+`]) { result { ... on Transaction { `+events+` } } } }`, nil)
		mu.Lock()
		defer mu.Unlock()
		by := readBy
		readBy = nil
		var d struct {
			TransactionsByIds []struct {
				Result struct{ Events json.RawMessage }
			}
		}
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, l := range d.TransactionsByIds {
			out.Write(l.Result.Events)
		}
		return out.String(), by
	}
	const fields = `__typename eventIndex txId`
	want, by := lookup(`events(limit: 10) { ` + fields + ` } first: events(limit: 1) { eventIndex }`)
	if !slices.Equal(by, []string{"events", "events"}) {
		t.Errorf("two windows read by %v, want a statement by each transaction's field per window", by)
	}
	got, by := lookup(`events(limit: 10) { ` + fields + ` }`)
	if got != want {
		t.Errorf("events read with the lookup differ from those each transaction reads:\n got %s\nwant %s", got, want)
	}
	if !slices.Equal(by, []string{"transactionsByIds"}) {
		t.Errorf("events read by %v, want one statement by the lookup", by)
	}
}

// Two pages of a block's transactions that differ only in the events they ask for are the same
// page: each lists the block's transactions once.
func TestPagesAskingDifferentEventsListTheSameTransactions(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	data, _ := a.mustQuery(t, `{ blocksConnection(first: 10) { nodes {
		plain: transactions(first: 20) { nodes { txId } }
		withEvents: transactions(first: 20) { nodes { txId events(limit: 5) { eventIndex } } } } } }`, nil)
	var d struct {
		BlocksConnection struct {
			Nodes []struct {
				Plain, WithEvents struct{ Nodes []struct{ TxID string } }
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, b := range d.BlocksConnection.Nodes {
		ids := func(c struct{ Nodes []struct{ TxID string } }) (out []string) {
			for _, n := range c.Nodes {
				out = append(out, n.TxID)
			}
			return out
		}
		plain, with := ids(b.Plain), ids(b.WithEvents)
		once := map[string]bool{}
		for _, id := range plain {
			once[id] = true
		}
		if !slices.Equal(plain, with) || len(once) != len(plain) {
			t.Errorf("a block's pages list %v and %v", plain, with)
		}
		listed += len(plain)
	}
	if listed == 0 {
		t.Fatal("the fixture's blocks list no transactions")
	}
}
