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

// A page of transactions reads only the columns its query shows, and answers every field as
// the page that reads whole rows does. Each field of Transaction is asked alone (with txId),
// then beside postConditions, which reads whole rows, on the blocks and account pages of the
// mocknet fixture (anchored and microblock transactions of every kind).
func TestTransactionPagesReadTheirColumnsOnly(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{Introspection: true})
	replay(t, a.store, "stacks/mocknet.tsv.gz", 1<<30)
	var captured struct {
		mu    sync.Mutex
		stmts []string
	}
	a.store.Observe(func(_ context.Context, st db.Statement) {
		captured.mu.Lock()
		defer captured.mu.Unlock()
		captured.stmts = append(captured.stmts, st.Query)
		a.sql.n.Add(1)
	})
	pages := map[string]string{
		"blocks":  `{ blocksConnection(first: 40) { nodes { transactions(first: 50) { nodes { txId %s } } } } }`,
		"account": `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 50) { edges { node { txId %s } } } } }`,
	}
	fields := transactionFields(t, a)
	if len(fields) < 30 {
		t.Fatalf("the schema lists %d Transaction fields", len(fields))
	}
	for name, page := range pages {
		for _, f := range fields {
			t.Run(name+"/"+strings.Fields(f)[0], func(t *testing.T) {
				captured.mu.Lock()
				captured.stmts = nil
				captured.mu.Unlock()
				narrow, _ := a.mustQuery(t, fmt.Sprintf(page, f), nil)
				captured.mu.Lock()
				stmts := strings.Join(captured.stmts, "\n")
				captured.mu.Unlock()
				whole, _ := a.mustQuery(t, fmt.Sprintf(page, f+" postConditions { __typename }"), nil)
				var n, w any
				if err := json.Unmarshal(narrow, &n); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(whole, &w); err != nil {
					t.Fatal(err)
				}
				if got, want := dropKey(n, "postConditions"), dropKey(w, "postConditions"); !reflect.DeepEqual(got, want) {
					t.Errorf("reading %s alone answers\n%s\nreading whole rows\n%s", f, narrow, whole)
				}
				if strings.Contains(stmts, "t.*") || strings.Contains(stmts, "t.raw_tx") {
					t.Errorf("a page showing %s read whole rows:\n%s", f, stmts)
				}
			})
		}
	}
}

// transactionFields are the Transaction fields a page can show, with a selection for those of
// object type, except those that decode the raw transaction (which read whole rows).
func transactionFields(t *testing.T, a *api) []string {
	data, _ := a.mustQuery(t, `{ __type(name: "Transaction") { fields { name } } }`, nil)
	var out struct {
		Type struct{ Fields []struct{ Name string } } `json:"__type"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	objects := map[string]string{"block": "block { height }", "microblock": "microblock { hash }", "sender": "sender { principal }",
		"sponsor": "sponsor { principal }", "events": "events { __typename eventIndex }"}
	rawTx := map[string]bool{"postConditions": true, "tokenTransfer": true, "smartContract": true, "contractCall": true,
		"poisonMicroblock": true, "coinbasePayload": true, "tenureChangePayload": true}
	var fields []string
	for _, f := range out.Type.Fields {
		switch {
		case rawTx[f.Name]:
		case objects[f.Name] != "":
			fields = append(fields, objects[f.Name])
		case f.Name == "txResult":
			fields = append(fields, "txResult { hex repr }")
		default:
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
