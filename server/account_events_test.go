package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

const accountEventsQuery = `query($p: String!, $n: Int, $after: String, $last: Int, $before: String, $types: [EventType!]) {
  account(principal: $p) { events(first: $n, after: $after, last: $last, before: $before, types: $types) {
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { eventType eventIndex txId } } } } }`

// eventPage is one page of Account.events.
type eventPage struct {
	Account struct {
		Events struct {
			PageInfo struct {
				HasNextPage, HasPreviousPage bool
				StartCursor, EndCursor       *string
			}
			Edges []struct {
				Cursor string
				Node   struct {
					EventType  string
					EventIndex int
					TxID       string
				}
			}
		}
	}
}

// walkEvents pages through a principal's events forward (first: size) or backward (last: size)
// and returns each event as "txid:index:kind", in list order.
func walkEvents(t *testing.T, a *api, principal string, types []string, size int, backward bool) []string {
	t.Helper()
	var out []string
	var cursor *string
	for range 200 {
		vars := map[string]any{"p": principal, "types": types}
		if backward {
			vars["last"], vars["before"] = size, cursor
		} else {
			vars["n"], vars["after"] = size, cursor
		}
		data, _ := a.mustQuery(t, accountEventsQuery, vars)
		var p eventPage
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		c := p.Account.Events
		if len(c.Edges) > size {
			t.Fatalf("page of %d events for a page size of %d", len(c.Edges), size)
		}
		page := make([]string, len(c.Edges))
		for i, e := range c.Edges {
			page[i] = fmt.Sprintf("%s:%d:%s", e.Node.TxID, e.Node.EventIndex, e.Node.EventType)
		}
		more, next := c.PageInfo.HasNextPage, c.PageInfo.EndCursor
		if backward {
			out, more, next = append(page, out...), c.PageInfo.HasPreviousPage, c.PageInfo.StartCursor
		} else {
			out = append(out, page...)
		}
		if !more {
			return out
		}
		cursor = next
	}
	t.Fatal("pagination did not end")
	return nil
}

// expectedEvents lists a principal's canonical events of the given kinds newest first, written
// independently of the store's query: one OR filter per table, sorted as a whole.
func expectedEvents(t *testing.T, a *api, principal string, types []string) []string {
	t.Helper()
	tables := map[string]string{
		"stx_asset":                "SELECT 'stx_asset' k, * FROM (SELECT tx_id, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM stx_events WHERE sender = ?0 OR recipient = ?0) x",
		"fungible_token_asset":     "SELECT 'fungible_token_asset' k, * FROM (SELECT tx_id, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM ft_events WHERE sender = ?0 OR recipient = ?0) x",
		"non_fungible_token_asset": "SELECT 'non_fungible_token_asset' k, * FROM (SELECT tx_id, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM nft_events WHERE sender = ?0 OR recipient = ?0) x",
		"stx_lock":                 "SELECT 'stx_lock' k, * FROM (SELECT tx_id, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM stx_lock_events WHERE locked_address = ?0) x",
		"smart_contract_log":       "SELECT 'smart_contract_log' k, * FROM (SELECT tx_id, event_index, block_height, microblock_sequence, tx_index, canonical, microblock_canonical FROM contract_logs WHERE contract_identifier = ?0) x",
	}
	if len(types) == 0 {
		types = []string{"stx_asset", "fungible_token_asset", "non_fungible_token_asset", "stx_lock", "smart_contract_log"}
	}
	var branches []string
	for _, k := range types {
		branches = append(branches, tables[k])
	}
	q := `SELECT '0x' || encode(tx_id, 'hex') || ':' || event_index || ':' || k FROM (` + strings.Join(branches, " UNION ALL ") +
		`) e WHERE canonical AND microblock_canonical ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC`
	var out []string
	if err := a.store.DB.NewRaw(q, principal).Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Paging an account's events forward and backward, in pages of several sizes, yields every
// canonical event of the asked kinds exactly once, in chain order (replayed chain data).
func TestAccountEventsPaging(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	tests := []struct {
		name, principal string
		types           []string
		min             int // the fixture's count, so that a broken expectation cannot pass empty
	}{
		{"stx transfers", "ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR", nil, 25},
		{"stx mint and locks", "STRYYQQ9M8KAF4NS7WNZQYY59X93XEKR31JP64CP", nil, 4},
		{"only locks", "STRYYQQ9M8KAF4NS7WNZQYY59X93XEKR31JP64CP", []string{"stx_lock"}, 3},
		{"contract prints", "ST000000000000000000002AMW42H.pox-4", nil, 9},
		{"contract, assets only", "ST000000000000000000002AMW42H.pox-4", []string{"stx_asset", "fungible_token_asset"}, 0},
		{"no events", "ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := expectedEvents(t, a, tc.principal, tc.types)
			if len(want) < tc.min {
				t.Fatalf("fixture has %d events of %s, expected at least %d", len(want), tc.principal, tc.min)
			}
			for _, size := range []int{1, 4, 100} {
				for _, backward := range []bool{false, true} {
					got := walkEvents(t, a, tc.principal, tc.types, size, backward)
					if !slices.Equal(got, want) {
						t.Errorf("size %d backward %v:\n got %v\nwant %v", size, backward, got, want)
					}
				}
			}
		})
	}
}

// Events of blocks off the canonical chain are not listed, and a transfer an account makes to
// itself is listed once (synthetic chain: every event is a self-transfer).
func TestAccountEventsCanonicalOnce(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 4, txsPerBlock: 2, eventsPerTx: 3, sender: testSender}
	c.seed(t, a.store)
	c.insertBlock(context.Background(), t, a.store, 3, false)
	want := expectedEvents(t, a, testSender, nil)
	if len(want) != 4*2*3 {
		t.Fatalf("expected %d canonical events, the independent query found %d", 4*2*3, len(want))
	}
	for _, backward := range []bool{false, true} {
		if got := walkEvents(t, a, testSender, nil, 5, backward); !slices.Equal(got, want) {
			t.Errorf("backward %v:\n got %v\nwant %v", backward, got, want)
		}
	}
}

// Accounts reached at one level share one statement per distinct page and kinds, however many.
func TestAccountEventsBatch(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 2, sender: testSender}
	c.seed(t, a.store)
	tests := []struct {
		name, query string
		statements  int64
	}{
		{"three accounts, one page", `{ a: account(principal: "` + testSender + `") { events(first: 2) { nodes { eventIndex } } }
			b: account(principal: "ST000000000000000000002AMW42H") { events(first: 2) { nodes { eventIndex } } }
			c: account(principal: "ST000000000000000000002AMW42H.pox") { events(first: 2) { nodes { eventIndex } } } }`, 1},
		{"two kinds sets", `{ a: account(principal: "` + testSender + `") { events(first: 2) { nodes { eventIndex } } }
			b: account(principal: "ST000000000000000000002AMW42H") { events(first: 2, types: [stx_lock]) { nodes { eventIndex } } } }`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, n := a.mustQuery(t, tc.query, nil); n != tc.statements {
				t.Errorf("ran %d statements, want %d", n, tc.statements)
			}
		})
	}
}

// Bad paging arguments are the client's error, with a message saying what is wrong.
func TestAccountEventsBadArguments(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	tests := []struct{ name, args, message string }{
		{"garbage cursor", `after: "!!"`, "is not a cursor of this list"},
		{"cursor of another list (block:1)", `after: "YmxvY2s6MQ"`, "is not a cursor of this list"},
		{"both directions", `first: 1, last: 1`, "not both"},
		{"page too large", `first: 101`, "between 0 and 100"},
		{"negative page", `last: -1`, "between 0 and 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := a.query(t, map[string]any{"query": `{ account(principal: "` + testSender + `") { events(` + tc.args + `) { nodes { eventIndex } } } }`})
			if len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, tc.message) || out.Errors[0].Extensions["code"] != "invalid" {
				t.Errorf("errors %+v, want one of code invalid containing %q", out.Errors, tc.message)
			}
		})
	}
}

// The asset events an account takes part in within one transaction list a transfer it makes
// to itself once, not once as sender and again as recipient (synthetic chain: every event is
// a self-transfer).
func TestAccountTransactionAssetEventsSelfTransferOnce(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	c := chain{blocks: 2, txsPerBlock: 2, eventsPerTx: 3, sender: testSender}
	c.seed(t, a.store)
	txID := fmt.Sprintf("0x%x", hash("tx", int32(2), 1, true))
	data, _ := a.mustQuery(t, `query($tx: Hex!) { account(principal: "`+testSender+`") {
		transactionAssetEvents(txId: $tx) { total results { eventIndex } } } }`, map[string]any{"tx": txID})
	var out struct {
		Account struct {
			TransactionAssetEvents struct {
				Total   int
				Results []struct{ EventIndex int }
			}
		}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	page := out.Account.TransactionAssetEvents
	var got []int
	for _, e := range page.Results {
		got = append(got, e.EventIndex)
	}
	if want := []int{0, 1, 2}; page.Total != c.eventsPerTx || !slices.Equal(got, want) {
		t.Errorf("total %d, event indexes %v; want %d and %v", page.Total, got, c.eventsPerTx, want)
	}
}
