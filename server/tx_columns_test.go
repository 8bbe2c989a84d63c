package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/server"
)

// txReads records the SQL of the statements that read mined transactions.
type txReads struct {
	mu      sync.Mutex
	queries []string
}

func (r *txReads) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queries
	r.queries = nil
	return q
}

// wide reports whether one of these reads fetched whole rows of txs.
func wide(queries []string) bool {
	for _, q := range queries {
		if strings.Contains(q, "t.*") || strings.Contains(q, "raw_tx") {
			return true
		}
	}
	return false
}

// txColumnsAPI serves the mocknet fixture (anchored and microblock transactions of every kind)
// and records its reads of transactions.
func txColumnsAPI(t *testing.T) (*api, *txReads) {
	a := newAPI(t, server.Config{Introspection: true})
	replay(t, a.store, "stacks/mocknet.tsv.gz", 1<<30)
	reads := &txReads{}
	a.store.Observe(func(_ context.Context, st db.Statement) {
		a.sql.n.Add(1)
		if strings.Contains(st.Query, "txs") && !strings.Contains(st.Query, "mempool_txs") {
			reads.mu.Lock()
			reads.queries = append(reads.queries, st.Query)
			reads.mu.Unlock()
		}
	})
	return a, reads
}

// The lists of transactions that the explorer pages show read the summary columns alone: a
// block's, the blocks page's, an account's and a lookup by id, whatever fragments and aliases
// the selection is written with; one field outside the summary, wherever it is asked, reads
// whole rows.
func TestTransactionListsReadTheirSelection(t *testing.T) {
	t.Parallel()
	a, reads := txColumnsAPI(t)
	ids := mockTxIDs(t, a)
	lookup := `{ transactionsByIds(ids: ["` + strings.Join(ids, `", "`) + `"]) { txId found result { %s } } }`
	const summary = `txId blockHeight feeRate txStatus sender { principal } events(limit: 5) { __typename }`
	queries := []struct {
		name, query string
		wide        bool
	}{
		{"block", `{ block(height: 2) { transactions(first: 20) { nodes { ` + summary + ` } } } }`, false},
		{"blocks", `{ blocksConnection(first: 20) { nodes { height transactions(first: 20) { nodes { ` + summary + ` } } } } }`, false},
		{"account", `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 20) { totalCount nodes { txId blockHeight feeRate } } } }`, false},
		{"lookup", fmt.Sprintf(lookup, `... on Transaction { `+summary+` }`), false},
		{"fragments and aliases", `query { blocksConnection(first: 20) { nodes { transactions(first: 20) { ...Page edges { cursor node { id: txId ... on AnyTransaction { ... on Transaction { fee: feeRate } } } } } } } }
			fragment Page on TransactionConnection { nodes { ...Row } }
			fragment Row on Transaction { txId txType blockHeight sponsor { principal } }`, false},
		{"lookup of a mempool field", fmt.Sprintf(lookup, `... on Transaction { txId } ... on MempoolTransaction { receiptTime }`), true},
		{"a raw field", `{ blocksConnection(first: 20) { nodes { transactions(first: 20) { nodes { txId feeRate postConditions { __typename } } } } } }`, true},
		{"a raw field in an edge", `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 20) { nodes { txId } edges { node { txResult { repr } } } } } }`, true},
		{"a raw field in a fragment", `query { block(height: 2) { transactions(first: 20) { nodes { txId ...Raw } } } }
			fragment Raw on Transaction { tokenTransfer { amount } }`, true},
		{"a raw field in a fragment on the union", `query { blocksConnection(first: 20) { nodes { transactions(first: 20) { nodes { txId ...Any } } } } }
			fragment Any on AnyTransaction { ... on Transaction { vmError } }`, true},
	}
	for _, q := range queries {
		a.mustQuery(t, q.query, nil)
		got := reads.take()
		if len(got) == 0 {
			t.Fatalf("%s: no statement read transactions", q.name)
		}
		if wide(got) != q.wide {
			t.Errorf("%s: reads whole rows %v, want %v:\n%s", q.name, wide(got), q.wide, strings.Join(got, "\n"))
		}
	}
}

// Every field of Transaction, asked alone (with txId) of a block's, the blocks page's, an
// account's transactions and of a lookup by id, answers as when the same read fetches whole
// rows (asked beside postConditions, which decodes the raw transaction).
func TestTransactionListsAnswerAsWholeRows(t *testing.T) {
	t.Parallel()
	a, reads := txColumnsAPI(t)
	ids := mockTxIDs(t, a)
	pages := map[string]string{
		"block":   `{ block(height: 2) { transactions(first: 50) { nodes { txId %s } } } }`,
		"blocks":  `{ blocksConnection(first: 40) { nodes { transactions(first: 50) { nodes { txId %s } } } } }`,
		"account": `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 50) { edges { node { txId %s } } } } }`,
		"lookup":  `{ transactionsByIds(ids: ["` + strings.Join(ids, `", "`) + `"]) { result { ... on Transaction { txId %s } } } }`,
	}
	fields := transactionFields(t, a)
	if len(fields) < 40 {
		t.Fatalf("the schema lists %d Transaction fields", len(fields))
	}
	narrow := 0
	for name, page := range pages {
		for _, f := range fields {
			t.Run(name+"/"+strings.Fields(f)[0], func(t *testing.T) {
				reads.take()
				n, _ := a.mustQuery(t, fmt.Sprintf(page, f), nil)
				if !wide(reads.take()) {
					narrow++
				}
				w, _ := a.mustQuery(t, fmt.Sprintf(page, f+" postConditions { __typename }"), nil)
				if !wide(reads.take()) {
					t.Fatalf("asking postConditions read no whole rows")
				}
				var nv, wv any
				if err := json.Unmarshal(n, &nv); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(w, &wv); err != nil {
					t.Fatal(err)
				}
				if got, want := dropKey(nv, "postConditions"), dropKey(wv, "postConditions"); !reflect.DeepEqual(got, want) {
					t.Errorf("reading %s alone answers\n%s\nreading whole rows\n%s", f, n, w)
				}
			})
		}
	}
	if narrow < 4*20 {
		t.Errorf("%d of the reads left columns unread", narrow)
	}
}

// mockTxIDs are the ids of the mocknet fixture's first mined transactions, as GraphQL writes them.
func mockTxIDs(t *testing.T, a *api) []string {
	data, _ := a.mustQuery(t, `{ blocksConnection(first: 10) { nodes { transactions(first: 10) { nodes { txId } } } } }`, nil)
	var out struct {
		BlocksConnection struct {
			Nodes []struct {
				Transactions struct{ Nodes []struct{ TxID string } }
			}
		}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range out.BlocksConnection.Nodes {
		for _, tx := range b.Transactions.Nodes {
			ids = append(ids, tx.TxID)
		}
	}
	if len(ids) < 10 {
		t.Fatalf("the fixture's first blocks hold %d transactions", len(ids))
	}
	return ids
}

// transactionFields are the fields of Transaction, with a selection for those of object type.
func transactionFields(t *testing.T, a *api) []string {
	data, _ := a.mustQuery(t, `{ __type(name: "Transaction") { fields { name } } }`, nil)
	var out struct {
		Type struct{ Fields []struct{ Name string } } `json:"__type"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	objects := map[string]string{"block": "block { height }", "microblock": "microblock { hash }", "sender": "sender { principal }",
		"sponsor": "sponsor { principal }", "events": "events { __typename eventIndex }", "txResult": "txResult { hex repr }",
		"postConditions": "postConditions { __typename }", "tokenTransfer": "tokenTransfer { amount recipientAddress memo }",
		"smartContract": "smartContract { contractId }", "contractCall": "contractCall { contractId functionName }",
		"poisonMicroblock": "poisonMicroblock { __typename }", "coinbasePayload": "coinbasePayload { data }",
		"tenureChangePayload": "tenureChangePayload { cause }"}
	var fields []string
	for _, f := range out.Type.Fields {
		if sel, ok := objects[f.Name]; ok {
			fields = append(fields, sel)
		} else {
			fields = append(fields, f.Name)
		}
	}
	return fields
}

// dropKey removes the members named key from every object of v.
func dropKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if k != key {
				out[k] = dropKey(e, key)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = dropKey(e, key)
		}
		return out
	}
	return v
}
