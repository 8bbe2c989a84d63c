package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

// planChain has a busy account whose history (about 2,700 transactions and as many STX events)
// is well above maxPlanRows, so that a read walking it cannot pass the row check, and a genesis
// mint to more accounts than that, so that neither can a read walking a transaction's events.
var planChain = chaingen.Options{Seed: 11, Blocks: 100, TxsPerBlock: 30, Accounts: 1200, BusyShare: 0.9, ContractCallsPerBlock: 1}

// maxPlanRows bounds the rows any one plan node of a read may produce or discard: a page of
// 20 blocks with their transactions, or a page of 50 rows with their events, stays below it.
// The benchmark chain's blocks hold 183 transactions each, and its busy account 50,000.
var maxPlanRows = 1000.0

// historyTables are the tables that grow with the chain: no read may scan one sequentially.
var historyTables = regexp.MustCompile(`Seq Scan on (blocks|microblocks|txs|mempool_txs|stx_events|ft_events|nft_events|` +
	`contract_logs|stx_lock_events|pox_events|miner_rewards|smart_contracts|principal_txs|principal_tx_positions|` +
	`principal_stx_checkpoints|principal_stx_totals|burn_blocks|event_observer_requests)\b`)

// historyFromHeap is a read of a principal's ordered history that visits the table: the heap of
// a chain followed block by block holds a principal's rows scattered over the pages their blocks
// were appended to, one page read each, while these indexes include what the reads ask for.
var historyFromHeap = regexp.MustCompile(`(Index Scan|Bitmap Heap Scan)( Backward)?( using \S+)? on principal_(tx|event)_positions\b|` +
	`Index Scan( Backward)? using (principal_txs_order_idx|principal_stx_checkpoints_pkey)\b`)

// longArray is an array literal of many keys, and longBytea a bytea literal of many packed keys,
// shortened in the written plans.
var (
	longArray = regexp.MustCompile(`'\{[^']{200,}\}'`)
	longBytea = regexp.MustCompile(`'\\x[0-9a-f]{200,}'`)
)

// capturedSQL records the read statements a store runs.
type capturedSQL struct {
	mu    sync.Mutex
	stmts []db.Statement
}

func (c *capturedSQL) observe(_ context.Context, st db.Statement) {
	st.Query = strings.TrimSpace(st.Query)
	if u := strings.ToUpper(strings.TrimLeft(st.Query, "( \t\n")); strings.HasPrefix(u, "SELECT") || strings.HasPrefix(u, "WITH") {
		c.mu.Lock()
		c.stmts = append(c.stmts, st)
		c.mu.Unlock()
	}
}

func (c *capturedSQL) take() []db.Statement {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stmts
	c.stmts = nil
	return s
}

// TestQueryPlans runs every REST path and the main GraphQL reads against a chain with a busy
// account and explains each statement they run: with sequential scans disabled no history table
// may still be scanned (an index serves every read), a principal's ordered history is read from
// its index alone (historyFromHeap), and executed, no plan node may touch more than maxPlanRows
// rows (no read walks the account's history, whatever the offset or height).
// The plans are written to testdata/plans with -update, for review.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	store, g := planDB(t)
	busy, idle := g.Busy(), g.Idle()
	var history int
	if err := store.DB.NewRaw("SELECT count(*) FROM principal_txs WHERE principal = ?", busy).Scan(ctx, &history); err != nil {
		t.Fatal(err)
	}
	if float64(history) < 2*maxPlanRows {
		t.Fatalf("the busy account has %d transactions: too few for the row bound to mean anything", history)
	}
	var txIDs []string
	if err := store.DB.NewRaw("SELECT '0x' || encode(tx_id, 'hex') FROM txs ORDER BY block_height DESC, tx_index LIMIT 3").Scan(ctx, &txIDs); err != nil {
		t.Fatal(err)
	}
	// span is the chain positions of the first and the last of the busy account's oldest 50
	// transactions_with_transfers, the genesis mint among them: a page whose transfers are read.
	var span [6]int64
	if err := store.DB.NewRaw(`SELECT
		(array_agg(t.block_height ORDER BY p.tseq))[1], (array_agg(t.microblock_sequence ORDER BY p.tseq))[1], (array_agg(t.tx_index ORDER BY p.tseq))[1],
		(array_agg(t.block_height ORDER BY p.tseq DESC))[1], (array_agg(t.microblock_sequence ORDER BY p.tseq DESC))[1], (array_agg(t.tx_index ORDER BY p.tseq DESC))[1]
		FROM (SELECT * FROM principal_tx_positions WHERE principal = ? AND tseq IS NOT NULL ORDER BY tseq LIMIT 50) p
		JOIN txs t USING (tx_id, index_block_hash, microblock_hash)`, busy).
		Scan(ctx, &span[0], &span[1], &span[2], &span[3], &span[4], &span[5]); err != nil {
		t.Fatal(err)
	}
	var burnHash string
	if err := store.DB.NewRaw("SELECT '0x' || encode(burn_block_hash, 'hex') FROM blocks WHERE canonical AND block_height = ?", planChain.Blocks/2).
		Scan(ctx, &burnHash); err != nil {
		t.Fatal(err)
	}

	var midIndexHash string
	if err := store.DB.NewRaw("SELECT '0x' || encode(index_block_hash, 'hex') FROM blocks WHERE canonical AND block_height = ?", planChain.Blocks/2).
		Scan(ctx, &midIndexHash); err != nil {
		t.Fatal(err)
	}

	captured := &capturedSQL{}
	store.Observe(captured.observe)
	h, err := server.New(server.Config{Store: store, ServerVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	mid, deep := fmt.Sprint(planChain.Blocks/2), fmt.Sprint(history-30)
	gql := func(q string) string { return "/graphql?query=" + url.QueryEscape(q) }
	reads := []struct{ name, path string }{
		{"stx-busy", "/extended/v1/address/" + busy + "/stx"},
		{"stx-busy-until-block", "/extended/v1/address/" + busy + "/stx?until_block=" + mid},
		{"stx-busy-unanchored", "/extended/v1/address/" + busy + "/stx?unanchored=true"},
		{"stx-idle", "/extended/v1/address/" + idle + "/stx"},
		{"transfers-busy", "/extended/v1/address/" + busy + "/transactions_with_transfers?limit=20"},
		{"transfers-busy-deep-offset", "/extended/v1/address/" + busy + "/transactions_with_transfers?limit=20&offset=" + deep},
		{"transfers-busy-until-block", "/extended/v1/address/" + busy + "/transactions_with_transfers?limit=20&offset=100&until_block=" + mid},
		{"transfers-busy-height", "/extended/v1/address/" + busy + "/transactions_with_transfers?height=" + mid},
		{"transfers-busy-unanchored", "/extended/v1/address/" + busy + "/transactions_with_transfers?limit=20&unanchored=true"},
		{"tx-multiple", "/extended/v1/tx/multiple?tx_id=" + strings.Join(txIDs, "&tx_id=")},
		{"events-busy", "/extended/v1/tx/events?address=" + busy + "&limit=50"},
		{"events-busy-deep-offset", "/extended/v1/tx/events?address=" + busy + "&limit=50&offset=" + deep},
		{"events-tx", "/extended/v1/tx/events?tx_id=" + txIDs[0]},
		{"contract-events", "/extended/v1/contract/" + g.ContractID() + "/events?limit=20"},
		{"blocks", "/extended/v1/block?limit=20"},
		{"block-by-burn-hash", "/extended/v1/block/by_burn_block_hash/" + burnHash},
		{"v2-address-txs-busy", "/extended/v2/addresses/" + busy + "/transactions?limit=50"},
		{"v2-address-txs-busy-deep-offset", "/extended/v2/addresses/" + busy + "/transactions?limit=20&offset=" + deep},
		{"v2-address-tx-events", "/extended/v2/addresses/" + busy + "/transactions/" + txIDs[0] + "/events"},
		{"v2-stx-balance-mempool", "/extended/v2/addresses/" + busy + "/balances/stx?include_mempool=true"},
		{"v2-contract-status", "/extended/v2/smart-contracts/status?contract_id=" + g.ContractID() + "&contract_id=" + busy + ".none"},
		{"v2-mempool-fees", "/extended/v2/mempool/fees"},
		{"v2-blocks", "/extended/v2/blocks?limit=30"},
		{"v2-blocks-cursor-offset", "/extended/v2/blocks?limit=30&offset=-20&cursor=" + midIndexHash},
		{"v2-tenure-blocks", "/extended/v2/block-tenures/7/blocks?limit=30&offset=300"},
		{"v2-block", "/extended/v2/blocks/" + midIndexHash},
		{"v2-block-transactions", "/extended/v2/blocks/" + mid + "/transactions?limit=50&offset=20"},
		{"v2-block-latest", "/extended/v2/blocks/latest"},
		{"v2-average-times", "/extended/v2/blocks/average-times"},
		{"v2-burn-blocks", "/extended/v2/burn-blocks?limit=30&offset=20"},
		{"v2-burn-block", "/extended/v2/burn-blocks/" + burnHash},
		{"v2-burn-block-blocks", "/extended/v2/burn-blocks/latest/blocks?limit=30"},
		{"graphql-front-page", gql(`{ blocksConnection(first: 20) { nodes { height hash burnBlock { height } transactions(first: 20) { nodes { txId feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } } }`)},
		{"graphql-account", gql(`{ account(principal: "` + busy + `") { stxBalance { balance locked } transactions(first: 20) { totalCount nodes { txId blockHeight feeRate } } } }`)},
		{"graphql-account-at-height", gql(`{ account(principal: "` + busy + `") { stxBalance(atHeight: ` + mid + `) { balance locked } } }`)},
		{"graphql-balance-history", gql(`{ account(principal: "` + busy + `") { balanceHistory(points: 200) { blockHeight balance changedAtHeight } } }`)},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) { planRead(t, srv.URL+r.path, store, captured, r.name, nil) })
	}
	// The fixed prepared reads at the far ends of their parameters: each parameter is named by
	// its cast, and the busy account's deepest offset.
	params := map[string]any{"$1::text": busy, "$2::bigint": int64(50), "$3::bigint": mustAtoi(t, deep), "$4::integer": mustAtoi(t, mid),
		"$2::integer": mustAtoi(t, mid)}
	note := fmt.Sprintf("$1 = the busy account, $2 = 50 (a height: %s), $3 = %s, $4 = %s", mid, deep, mid)
	// The transfers of a page take its span: $2–$4 the first position, $5–$7 the last.
	spanParams := map[string]any{"$1::text": busy}
	for i, v := range span {
		spanParams[fmt.Sprintf("$%d::integer", i+2)] = v
	}
	spanNote := fmt.Sprintf("$1 = the busy account, $2–$7 = the span of its oldest 50 transactions %v", span)
	for name, q := range db.PreparedStatements() {
		t.Run(name, func(t *testing.T) {
			p, n := params, note
			if name == "principal-transfers" {
				p, n = spanParams, spanNote
			}
			var args []any
			for i := 1; ; i++ {
				arg, ok := castParam(q, i, p)
				if !ok {
					break
				}
				args = append(args, arg)
			}
			st := store.Statement(q, args...)
			writePlans(t, name, fmt.Sprintf("-- prepared, %s\n%s\n\n%s\n", n, q, checkPlan(t, store, st)))
		})
	}
}

// planDB is the chain the plans are checked on: planChain replayed into a fresh database, or,
// with STXGRAPH_PLANS_DB set, that database holding bench.HistoryChain (the benchmark chain,
// loadgen prepare), to see the plans at scale.
func planDB(t *testing.T) (*db.Store, *chaingen.Generator) {
	ctx := context.Background()
	if dsn := os.Getenv("STXGRAPH_PLANS_DB"); dsn != "" {
		store := db.Open(dsn, db.PoolOptions{MaxOpen: 4})
		t.Cleanup(func() { store.Close() })
		maxPlanRows = 10_000
		g, err := chaingen.New(bench.HistoryChain)
		if err != nil {
			t.Fatal(err)
		}
		return store, g
	}
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	g, err := chaingen.New(planChain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Replay(ctx, store, g, nil); err != nil {
		t.Fatal(err)
	}
	if err := store.VacuumChainData(ctx); err != nil {
		t.Fatal(err)
	}
	return store, g
}

// castParam is the parameter $i of q, found in params by its cast in q.
func castParam(q string, i int, params map[string]any) (any, bool) {
	for key, v := range params {
		if strings.HasPrefix(key, "$"+strconv.Itoa(i)+"::") && strings.Contains(q, key) {
			return v, true
		}
	}
	return nil, false
}

func mustAtoi(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// preparedNote marks, in the written plans, a statement explained as the server runs it:
// prepared, on its generic plan.
func preparedNote(st db.Statement) string {
	if len(st.Args) == 0 {
		return ""
	}
	return " (prepared: its generic plan)"
}

// checkPlan explains st as the server runs it (dbtest.ExplainAsServed): the text plan must not
// scan a history table, and executed, no node may touch more than maxPlanRows rows.
func checkPlan(t *testing.T, store *db.Store, st db.Statement) string {
	t.Helper()
	plan, js, err := dbtest.ExplainAsServed(context.Background(), store, st)
	stmt := st.Text()
	if err != nil {
		t.Fatalf("explain %s: %v", stmt, err)
	}
	if m := historyTables.FindString(plan); m != "" {
		t.Errorf("%s with no index to serve it:\n%s\n%s", m, stmt, plan)
	}
	if m := historyFromHeap.FindString(plan); m != "" {
		t.Errorf("%s: a history read from the heap, not its index alone:\n%s\n%s", m, stmt, plan)
	}
	root, took, err := dbtest.ParsePlan(js)
	if err != nil {
		t.Fatalf("plan %s: %v", js, err)
	}
	root.Walk(func(n *dbtest.PlanNode) {
		if rows := n.Touched(); rows > maxPlanRows {
			t.Errorf("%s node touches %.0f rows (more than %.0f):\n%s\n%s", n.NodeType, rows, maxPlanRows, stmt, plan)
		}
	})
	if os.Getenv("STXGRAPH_PLANS_DB") != "" {
		plan += fmt.Sprintf("\n(executed in %.2f ms)", took)
	}
	return plan
}

func writePlans(t *testing.T, name, plans string) {
	t.Helper()
	dir := os.Getenv("STXGRAPH_PLANS_OUT")
	if dir == "" && *update {
		dir = filepath.Join("testdata", "plans")
	}
	if dir == "" {
		return
	}
	plans = longArray.ReplaceAllString(plans, "'{…}'")
	plans = longBytea.ReplaceAllString(plans, `'\x…'`)
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(plans), 0o644); err != nil {
		t.Fatal(err)
	}
}

// planRead runs one read, which must answer 200 without errors, and writes the plan of every
// statement it ran to testdata/plans/<name>.txt; check, when given, sees each statement with its
// plan. It returns the statements, sorted by text (loaders batch concurrently, so the order they
// ran in varies).
func planRead(t *testing.T, url string, store *db.Store, captured *capturedSQL, name string, check func(db.Statement, string)) []db.Statement {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"errors"`) {
		t.Fatalf("status %d: %.300s", resp.StatusCode, body)
	}
	stmts := captured.take()
	if len(stmts) == 0 {
		t.Fatal("the read ran no statement")
	}
	slices.SortFunc(stmts, func(a, b db.Statement) int { return strings.Compare(a.Text(), b.Text()) })
	var out strings.Builder
	for i, s := range stmts {
		plan := checkPlan(t, store, s)
		if check != nil {
			check(s, plan)
		}
		fmt.Fprintf(&out, "-- statement %d%s\n%s\n\n%s\n", i+1, preparedNote(s), s.Text(), plan)
	}
	writePlans(t, name, out.String())
	return stmts
}
