package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/server"
)

// seedBrc20 stores token "ordi" (2 decimals) with its balances, and a balance of another token.
func seedBrc20(t *testing.T, store *db.Store) {
	t.Helper()
	ctx := context.Background()
	token := &db.Brc20Token{Ticker: "ordi", DisplayTicker: "ORDI", InscriptionID: "b61bi0", InscriptionNumber: 348020, BlockHeight: 779832,
		BlockHash: "00", TxID: "b61b", Address: "bc1qdeployer", MaxSupply: "2100000000", MintLimit: "100000", Decimals: 2,
		MintedSupply: "123456789012345678901234568790", TxCount: 6, DeployTimestamp: 1678248991000}
	if _, err := store.DB.NewInsert().Model(token).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	balances := []*db.Brc20Balance{
		{Ticker: "ordi", Address: "bc1qb", AvailBalance: "300", TransBalance: "200", TotalBalance: "500"},
		{Ticker: "ordi", Address: "bc1qa", AvailBalance: "500", TransBalance: "0", TotalBalance: "500"},
		{Ticker: "ordi", Address: "bc1qc", AvailBalance: "1000", TransBalance: "0", TotalBalance: "1000"},
		{Ticker: "ordi", Address: "bc1qwhale", AvailBalance: "123456789012345678901234567890", TransBalance: "0", TotalBalance: "123456789012345678901234567890"},
		{Ticker: "ordi", Address: "bc1qempty", AvailBalance: "0", TransBalance: "0", TotalBalance: "0"},
		{Ticker: "sats", Address: "bc1qother", AvailBalance: "7", TransBalance: "0", TotalBalance: "7"},
	}
	if _, err := store.DB.NewInsert().Model(&balances).Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

const holdersQuery = `query($n: Int, $after: String) { brc20Token(ticker: "ORDI") { holders(first: $n, after: $after) {
  totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
  edges { cursor node { address overallBalance availableBalance transferrableBalance } } } } }`

type holder struct{ Address, OverallBalance, AvailableBalance, TransferrableBalance string }

// Holders are listed largest balance first (ties by address), each exactly once however the
// list is paged, with balances scaled by the token's decimals and the zero balance left out.
func TestBrc20Holders(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	seedBrc20(t, a.store)
	want := []holder{
		{"bc1qwhale", "1234567890123456789012345678.90", "1234567890123456789012345678.90", "0.00"},
		{"bc1qc", "10.00", "10.00", "0.00"},
		{"bc1qa", "5.00", "5.00", "0.00"},
		{"bc1qb", "5.00", "3.00", "2.00"},
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

// A cursor that is not a holder cursor is the client's error, never a database error.
func TestBrc20HoldersBadCursor(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	seedBrc20(t, a.store)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct{ name, after string }{
		{"not base64", "!!"},
		{"another list's cursor", enc("block:1")},
		{"balance not a number", enc("brc20holder:1e5:bc1qa")},
		{"negative balance", enc("brc20holder:-5:bc1qa")},
		{"no address", enc("brc20holder:500:")},
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
