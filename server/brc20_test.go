package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/internal/inscriptionfeed"
	"github.com/stxgraph/stxgraph/server"
)

// ingestSample applies the first n blocks of the sample inscription history (all when n < 0)
// through the inscription ingestion.
func ingestSample(t *testing.T, a *api, n int) []*inscriptionfeed.Block {
	t.Helper()
	blocks := inscriptionfeed.Sample()
	if n < 0 {
		n = len(blocks)
	}
	for _, b := range blocks[:n] {
		if err := inscriptionfeed.Apply(context.Background(), a.store, b.Payload()); err != nil {
			t.Fatal(err)
		}
	}
	return blocks[n:]
}

const holdersQuery = `query($n: Int, $after: String) { brc20Token(ticker: "ORDI") { holders(first: $n, after: $after) {
  totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
  edges { cursor node { address overallBalance availableBalance transferrableBalance } } } } }`

type holder struct{ Address, OverallBalance, AvailableBalance, TransferrableBalance string }

// Holders are listed largest balance first, each exactly once however the list is paged, with
// balances scaled by the token's decimals.
func TestBrc20Holders(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, -1)
	want := []holder{
		{inscriptionfeed.Alice, "700.000000000000000000", "700.000000000000000000", "0.000000000000000000"},
		{inscriptionfeed.Carol, "600.000000000000000000", "600.000000000000000000", "0.000000000000000000"},
		{inscriptionfeed.Bob, "500.000000000000000000", "400.000000000000000000", "100.000000000000000000"},
	}
	for _, size := range []int{1, 2, 3, 20} {
		var got []holder
		var cursor *string
		for page := 0; ; page++ {
			data, _ := a.mustQuery(t, holdersQuery, map[string]any{"n": size, "after": cursor})
			var out struct {
				Brc20Token struct {
					Holders struct {
						TotalCount int
						PageInfo   struct {
							HasNextPage, HasPreviousPage bool
							EndCursor                    *string
						}
						Edges []struct{ Node holder }
					}
				}
			}
			if err := json.Unmarshal(data, &out); err != nil {
				t.Fatal(err)
			}
			h := out.Brc20Token.Holders
			if h.TotalCount != len(want) || h.PageInfo.HasPreviousPage != (cursor != nil) || len(h.Edges) > size {
				t.Fatalf("size %d page %d: totalCount %d, hasPreviousPage %v, %d edges", size, page, h.TotalCount, h.PageInfo.HasPreviousPage, len(h.Edges))
			}
			for _, e := range h.Edges {
				got = append(got, e.Node)
			}
			if !h.PageInfo.HasNextPage {
				break
			}
			if page > len(want) {
				t.Fatalf("size %d: paging does not end", size)
			}
			cursor = h.PageInfo.EndCursor
		}
		if !slices.Equal(got, want) {
			t.Errorf("size %d:\n got %v\nwant %v", size, got, want)
		}
	}
}

// A cursor that is not a cursor of the list is the client's error, never a database error.
func TestBrc20BadCursor(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, -1)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct{ name, after string }{
		{"not base64", "!!"},
		{"not JSON", enc("brc20holder:1:bc1qa")},
		{"another list's cursor", enc(`{"l":"brc20activity","i":[779833,1]}`)},
		{"balance not a number", enc(`{"l":"brc20holder","n":"1e5","i":[0,0],"t":"bc1qa"}`)},
		{"negative balance", enc(`{"l":"brc20holder","n":"-5","i":[0,0],"t":"bc1qa"}`)},
		{"no balance", enc(`{"l":"brc20holder","i":[0,0],"t":"bc1qa"}`)},
		{"NUL in the address", enc(`{"l":"brc20holder","n":"5","i":[0,0],"t":"bc1\u0000"}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := a.query(t, map[string]any{"query": holdersQuery, "variables": map[string]any{"after": tc.after}})
			if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "invalid" || !strings.Contains(out.Errors[0].Message, "not a cursor of this list") {
				t.Errorf("errors %+v, want one of code invalid", out.Errors)
			}
		})
	}
}

// The holders of every listed token are read with one statement, whatever the number of tokens.
func TestBrc20NestedHoldersOneStatementPerLevel(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, -1)
	data, n := a.mustQuery(t, `{ brc20Tokens { nodes { ticker holderCount holders(first: 1) { totalCount nodes { address } } } } }`, nil)
	var out struct {
		Brc20Tokens struct {
			Nodes []struct {
				Ticker      string
				HolderCount int
				Holders     struct {
					TotalCount int
					Nodes      []struct{ Address string }
				}
			}
		}
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range out.Brc20Tokens.Nodes {
		line := fmt.Sprintf("%s %d %d", tk.Ticker, tk.HolderCount, tk.Holders.TotalCount)
		for _, h := range tk.Holders.Nodes {
			line += " " + h.Address
		}
		got = append(got, line)
	}
	// Newest deploy first: the three deploys share a block, in reverse transaction order.
	want := []string{"äbc 0 0", "dec2 2 2 " + inscriptionfeed.Carol, "ordi 3 3 " + inscriptionfeed.Alice}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if n != 2 {
		t.Errorf("%d statements, want 2 (the tokens, then every token's holders)", n)
	}
}

type activity struct {
	Operation, Ticker, InscriptionId string
	BlockHeight                      int
	Amount                           string // "" for deploys
}

// Paging the activity with cursors, or with offsets, lists the same operations as one page.
func TestBrc20ActivityPaging(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, -1)
	const q = `query($f: [String!], $n: Int, $after: String, $offset: Int, $address: String) {
	  brc20Activity(tickers: $f, first: $n, after: $after, offset: $offset, address: $address) {
	    totalCount pageInfo { hasNextPage endCursor } nodes { operation ticker inscriptionId blockHeight amount } } }`
	type page struct {
		Brc20Activity struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
			Nodes []activity
		}
	}
	read := func(vars map[string]any) page {
		data, _ := a.mustQuery(t, q, vars)
		var p page
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, filter := range []map[string]any{{}, {"f": []string{"ORDI"}}, {"address": inscriptionfeed.Carol}} {
		all := read(map[string]any{"n": 100, "f": filter["f"], "address": filter["address"]}).Brc20Activity
		if all.TotalCount != len(all.Nodes) || all.PageInfo.HasNextPage || len(all.Nodes) < 3 {
			t.Fatalf("%v: one page of %d operations, totalCount %d", filter, len(all.Nodes), all.TotalCount)
		}
		for i := 1; i < len(all.Nodes); i++ {
			if all.Nodes[i].BlockHeight > all.Nodes[i-1].BlockHeight {
				t.Fatalf("%v: not newest first: %v", filter, all.Nodes)
			}
		}
		var byCursor, byOffset []activity
		var cursor *string
		for {
			p := read(map[string]any{"n": 2, "after": cursor, "f": filter["f"], "address": filter["address"]}).Brc20Activity
			byCursor = append(byCursor, p.Nodes...)
			if !p.PageInfo.HasNextPage {
				break
			}
			cursor = p.PageInfo.EndCursor
		}
		for off := 0; off < len(all.Nodes); off += 3 {
			byOffset = append(byOffset, read(map[string]any{"n": 3, "offset": off, "f": filter["f"], "address": filter["address"]}).Brc20Activity.Nodes...)
		}
		if fmt.Sprint(byCursor) != fmt.Sprint(all.Nodes) || fmt.Sprint(byOffset) != fmt.Sprint(all.Nodes) {
			t.Errorf("%v:\n one page %v\nby cursor %v\nby offset %v", filter, all.Nodes, byCursor, byOffset)
		}
	}
}

// A subscriber to a ticker receives that token's operations of each newly ingested block, in
// block order, and nothing of the other tokens.
func TestBrc20ActivitySubscription(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := ingestSample(t, a, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	c.subscribe("ordi", `subscription { brc20Activity(ticker: "ORDI") { position activity { operation ticker inscriptionId blockHeight amount } } }`)
	next := func() activity {
		it := nextOf[struct{ Activity *activity }](c, "ordi")
		if it.Activity == nil {
			t.Fatal("an item without an operation")
		}
		return *it.Activity
	}
	// Announce the first block again until the subscriber hears it: from then on it is live.
	notice := fmt.Sprintf(`{"height":779832,"hash":%q,"rollback":false,"tickers":["ordi"],"addresses":[]}`, inscriptionfeed.Hash(779832))
	live := notifyUntilClosed(ctx, a, notices.Brc20Channel, notice)
	if got := next(); got.BlockHeight != 779832 || got.Operation != "DEPLOY" || got.Ticker != "ordi" {
		t.Fatalf("announced deploy arrived as %+v", got)
	}
	close(live)
	for _, b := range rest {
		if err := inscriptionfeed.Apply(ctx, a.store, b.Payload()); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"779833 MINT 1000.000000000000000000", "779833 MINT 500.000000000000000000",
		"779834 TRANSFER 300.000000000000000000", "779834 TRANSFER 100.000000000000000000",
		"779835 TRANSFER_SEND 300.000000000000000000", "779835 MINT 300.000000000000000000"}
	var got []string
	for len(got) < len(want) {
		op := next()
		if op.BlockHeight == 779832 { // announcements sent before the loop stopped
			continue
		}
		if op.Ticker != "ordi" {
			t.Fatalf("got %+v", op)
		}
		got = append(got, fmt.Sprintf("%d %s %s", op.BlockHeight, op.Operation, op.Amount))
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Every BRC-20 connection pages by cursor through exactly the rows of its one-page read, in the
// same order, and its totalCount counts them.
func TestBrc20ConnectionsPageByCursor(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, -1)
	const page = `totalCount pageInfo { hasNextPage endCursor } nodes { %s }`
	tests := []struct {
		name, query string
		path        []string
		want        int
	}{
		{"tokens by deploy", `query($n: Int, $after: String) { c: brc20Tokens(first: $n, after: $after) { ` + fmt.Sprintf(page, "ticker") + ` } }`, []string{"c"}, 3},
		{"tokens by operations", `query($n: Int, $after: String) { c: brc20Tokens(orderBy: TX_COUNT, first: $n, after: $after) { ` + fmt.Sprintf(page, "ticker txCount") + ` } }`, []string{"c"}, 3},
		{"tokens by prefix", `query($n: Int, $after: String) { c: brc20Tokens(tickers: ["O", "ä"], first: $n, after: $after) { ` + fmt.Sprintf(page, "ticker") + ` } }`, []string{"c"}, 2},
		{"balances", `query($n: Int, $after: String) { a: brc20Address(address: "` + inscriptionfeed.Alice + `") { c: balances(first: $n, after: $after) { ` + fmt.Sprintf(page, "ticker overallBalance") + ` } } }`, []string{"a", "c"}, 2},
		{"balances at a height", `query($n: Int, $after: String) { a: brc20Address(address: "` + inscriptionfeed.Alice + `") { c: balances(blockHeight: 779834, first: $n, after: $after) { ` + fmt.Sprintf(page, "ticker availableBalance transferrableBalance") + ` } } }`, []string{"a", "c"}, 2},
		{"transferables", `query($n: Int, $after: String) { a: brc20Address(address: "` + inscriptionfeed.Bob + `") { c: transferables(first: $n, after: $after) { ` + fmt.Sprintf(page, "inscriptionId amount rawAmount") + ` } } }`, []string{"a", "c"}, 1},
		{"address activity", `query($n: Int, $after: String) { a: brc20Address(address: "` + inscriptionfeed.Alice + `") { c: activity(first: $n, after: $after) { ` + fmt.Sprintf(page, "operation inscriptionId fromAddress toAddress") + ` } } }`, []string{"a", "c"}, 5},
	}
	type conn struct {
		TotalCount int
		PageInfo   struct {
			HasNextPage bool
			EndCursor   *string
		}
		Nodes []json.RawMessage
	}
	read := func(t *testing.T, q string, path []string, vars map[string]any) conn {
		data, _ := a.mustQuery(t, q, vars)
		for _, p := range path {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			data = m[p]
		}
		var c conn
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			all := read(t, tc.query, tc.path, map[string]any{"n": 100})
			if len(all.Nodes) != tc.want || all.TotalCount != tc.want || all.PageInfo.HasNextPage {
				t.Fatalf("one page: %d nodes, totalCount %d, hasNextPage %v; want %d", len(all.Nodes), all.TotalCount, all.PageInfo.HasNextPage, tc.want)
			}
			var walked []json.RawMessage
			var cursor *string
			for range tc.want + 1 {
				c := read(t, tc.query, tc.path, map[string]any{"n": 1, "after": cursor})
				walked = append(walked, c.Nodes...)
				if !c.PageInfo.HasNextPage {
					break
				}
				cursor = c.PageInfo.EndCursor
			}
			if fmt.Sprintf("%s", walked) != fmt.Sprintf("%s", all.Nodes) {
				t.Errorf("by cursor %s\none page  %s", walked, all.Nodes)
			}
		})
	}
}

// A subscriber to an address receives the operations it takes part in, as sender or receiver;
// a block rolled back and applied again is reported again.
func TestBrc20AddressActivitySubscription(t *testing.T) {
	t.Parallel()
	a := startAPI(t, server.Config{}, true)
	rest := ingestSample(t, a, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialWS(t, ctx, a)
	c.subscribe("carol", `subscription { brc20Activity(address: "`+inscriptionfeed.Carol+`") { position activity { operation ticker blockHeight address fromAddress } rolledBack { height hash } } }`)
	type op struct {
		Operation, Ticker, Address string
		BlockHeight                int
		FromAddress                *string
	}
	type rolledBack struct {
		Height int
		Hash   string
	}
	type item struct {
		Activity   *op
		RolledBack *rolledBack
	}
	nextItem := func() item { return nextOf[item](c, "carol") }
	next := func() op {
		it := nextItem()
		if it.Activity == nil {
			t.Fatalf("item %+v, want an operation", it)
		}
		return *it.Activity
	}
	notice := fmt.Sprintf(`{"height":779833,"hash":%q,"rollback":false,"tickers":["dec2"],"addresses":[%q]}`,
		inscriptionfeed.Hash(779833), inscriptionfeed.Carol)
	live := notifyUntilClosed(ctx, a, notices.Brc20Channel, notice)
	if got := next(); got.BlockHeight != 779833 || got.Operation != "MINT" || got.Ticker != "dec2" || got.Address != inscriptionfeed.Carol {
		t.Fatalf("announced mint arrived as %+v", got)
	}
	close(live)
	// Each step waits for its reports: a notice is read back after it arrives, and a block rolled
	// back meanwhile has nothing left to report.
	last := rest[0]
	var got []string
	for _, p := range [][]byte{last.Payload(), last.RollbackPayload(), last.Payload()} {
		if err := inscriptionfeed.Apply(ctx, a.store, p); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(p, last.RollbackPayload()) {
			it := nextItem()
			for it.Activity != nil && it.Activity.BlockHeight == 779833 { // announcements sent before the loop stopped
				it = nextItem()
			}
			if it.RolledBack == nil || it.RolledBack.Height != 779835 || it.RolledBack.Hash != inscriptionfeed.Hash(779835) {
				t.Fatalf("after the rollback: %+v, want block 779835 rolled back", it)
			}
			continue
		}
		for n := len(got) + 2; len(got) < n; {
			o := next()
			if o.BlockHeight == 779833 { // announcements sent before the loop stopped
				continue
			}
			from := ""
			if o.FromAddress != nil {
				from = *o.FromAddress
			}
			got = append(got, fmt.Sprintf("%d %s %s %s>%s", o.BlockHeight, o.Operation, o.Ticker, from, o.Address))
		}
	}
	send := "779835 TRANSFER_SEND ordi " + inscriptionfeed.Alice + ">" + inscriptionfeed.Carol
	mint := "779835 MINT ordi >" + inscriptionfeed.Carol
	if want := []string{send, mint, send, mint}; !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Bad arguments of the BRC-20 fields are the client's error, with a message saying which.
func TestBrc20BadArguments(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ingestSample(t, a, 1)
	tests := []struct{ name, query, message string }{
		{"ticker too long", `{ brc20Token(ticker: "toolongticker") { ticker } }`, "is not a BRC-20 ticker"},
		{"empty ticker", `{ brc20Token(ticker: "") { ticker } }`, "is not a BRC-20 ticker"},
		{"NUL in a ticker", `{ brc20Token(ticker: "or\u0000i") { ticker } }`, "contains a NUL character"},
		{"NUL in an address", `{ brc20Address(address: "bc1\u0000") { address } }`, "contains a NUL character"},
		{"NUL in a prefix", `{ brc20Tokens(tickers: ["\u0000"]) { totalCount } }`, "contains a NUL character"},
		{"negative offset", `{ brc20Activity(offset: -1) { totalCount } }`, "offset must be 0 or more"},
		{"negative height", `{ brc20Address(address: "x") { balances(blockHeight: -1) { totalCount } } }`, "blockHeight must be 0 or more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := a.query(t, map[string]any{"query": tc.query})
			if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "invalid" || !strings.Contains(out.Errors[0].Message, tc.message) {
				t.Errorf("errors %+v, want one of code invalid saying %q", out.Errors, tc.message)
			}
		})
	}
}
