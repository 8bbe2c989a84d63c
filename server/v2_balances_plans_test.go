package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/server"
)

// holdingTables are the token tables: a read must find a principal's rows through an index.
var holdingTables = regexp.MustCompile(`Seq Scan on (ft_balances|nft_custody)\b`)

// heldTokens is how many FT balances and NFTs the busy account is given beside the other
// accounts' holdings: a wallet's worth, well below maxPlanRows, that a deep page walks.
const heldTokens = 300

// holdingsSQL gives the busy account (?0) heldTokens FT balances (every third one zero, as a
// token spent entirely leaves) and NFTs, and forty other accounts of the chain as many, so that
// a read that does not narrow to the account touches thousands of rows.
const holdingsSQL = `
WITH p AS ((SELECT principal FROM principal_stx_totals ORDER BY principal LIMIT 40) UNION SELECT ?0),
f AS (INSERT INTO ft_balances (principal, asset_identifier, balance)
	SELECT p.principal, 'SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-' || i || '::T' || i, CASE WHEN i % 3 = 0 THEN 0 ELSE i END
	FROM p, generate_series(1, ?1) i RETURNING 1)
INSERT INTO nft_custody (asset_identifier, value, recipient, tx_id, index_block_hash, microblock_hash, block_height,
	microblock_sequence, tx_index, event_index)
SELECT 'SP000000000000000000002Q6VF78.bns::names', int4send(i) || convert_to(p.principal, 'UTF8'), p.principal, '\x01', '\x02', '', i, 2147483647, 0, 0
FROM p, generate_series(1, ?1) i`

// TestTokenHoldingPlans explains the token reads, REST and GraphQL, and their prepared
// statements, on the plan chain with holdings added: each finds the account's rows by index,
// and no plan node touches more than maxPlanRows rows. Plans are written with -update.
func TestTokenHoldingPlans(t *testing.T) {
	if os.Getenv("STXGRAPH_PLANS_DB") != "" {
		t.Skip("adds rows to the chain: runs on the plan chain only")
	}
	ctx := context.Background()
	store, g := planDB(t)
	busy := g.Busy()
	if _, err := store.DB.NewRaw(holdingsSQL, busy, heldTokens).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := store.DB.ExecContext(ctx, "ANALYZE ft_balances; ANALYZE nft_custody"); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, store, "SELECT count(*) FROM ft_balances"); float64(n) < 10*maxPlanRows {
		t.Fatalf("%v FT balances: too few for a scan to show", n)
	}

	captured := &capturedSQL{}
	store.Observe(captured.observe)
	h, err := server.New(server.Config{Store: store, ServerVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	token := "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.token-7::T7"
	gql := func(q string) string { return "/graphql?query=" + url.QueryEscape(q) }
	reads := []struct{ name, path string }{
		{"v2-ft-balances", "/extended/v2/addresses/" + busy + "/balances/ft"},
		{"v2-ft-balances-deep-offset", "/extended/v2/addresses/" + busy + "/balances/ft?limit=20&offset=180"},
		{"v2-ft-balances-past-end", "/extended/v2/addresses/" + busy + "/balances/ft?offset=1000"},
		{"v2-ft-balance", "/extended/v2/addresses/" + busy + "/balances/ft/" + token},
		{"graphql-account-tokens", gql(`{ account(principal: "` + busy + `") { ftBalances(limit: 20) { total results { token balance } }
			nftHoldings(limit: 20, offset: 250) { total results { assetIdentifier value { repr } txId blockHeight } } } }`)},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			planRead(t, srv.URL+r.path, store, captured, r.name, func(s db.Statement, plan string) {
				if m := holdingTables.FindString(plan); m != "" {
					t.Errorf("%s:\n%s\n%s", m, s.Text(), plan)
				}
			})
		})
	}
	for name, q := range db.TokenHoldingStatements() {
		t.Run(name, func(t *testing.T) {
			args := []any{busy}
			switch {
			case strings.Contains(q, "$3::bigint"):
				args = append(args, int64(50), int64(heldTokens-60))
			case strings.Contains(q, "$2::text"):
				args = append(args, token)
			}
			plan := checkPlan(t, store, store.Statement(q, args...))
			if m := holdingTables.FindString(plan); m != "" {
				t.Errorf("%s:\n%s\n%s", m, q, plan)
			}
			writePlans(t, "prepared-"+name, fmt.Sprintf("-- prepared, $1 = the busy account (%d tokens), $2 = 50 or a token, $3 = %d\n%s\n\n%s\n",
				heldTokens, heldTokens-60, q, plan))
		})
	}
}

func countRows(t *testing.T, store *db.Store, q string) int64 {
	t.Helper()
	var n int64
	if err := store.DB.NewRaw(q).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}
