package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/rest"
)

// busy is a synthetic principal with a long history, added on top of the mocknet fixture.
const busy = "ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH"

// withBusyAccount replays mocknet and gives busy n STX transfers (txs, events, history rows,
// running totals, checkpoints and positions, as ingestion would, with the roles of a sender of
// STX transfers: 1|32), spread over the existing canonical blocks.
func withBusyAccount(b testing.TB, n int) *db.Store {
	store := replay(b, "mocknet")
	ctx := context.Background()
	var err error
	for from := 0; from < n && err == nil; from += 5000 {
		err = insertBusy(ctx, store, from+1, min(n, from+5000))
	}
	if err == nil {
		_, err = store.DB.ExecContext(ctx, `INSERT INTO principal_stx_totals (principal, total_received, total_sent, total_fees_sent, tx_count)
			VALUES (?, 0, ?, 180 * ?, ?)`, busy, n, n, n)
	}
	if err == nil {
		err = rebuildPositions(ctx, store)
	}
	if err == nil {
		_, err = store.DB.ExecContext(ctx, `ANALYZE`)
	}
	if err != nil {
		b.Fatal(err)
	}
	return store
}

// rebuildPositions rebuilds the per-principal checkpoints, list positions and counters from the
// history, as their migrations do for a database ingested before them: the busy account's rows
// are written directly, not through ingestion.
func rebuildPositions(ctx context.Context, store *db.Store) error {
	for _, f := range []string{"20261124000501_principal_event_positions.tx.down", "20261124000500_principal_positions.tx.down",
		"20261124000500_principal_positions.tx.up", "20261124000501_principal_event_positions.tx.up",
		"20261126000200_v2_addresses.tx.down", "20261126000200_v2_addresses.tx.up"} {
		b, err := os.ReadFile("../db/migrations/" + f + ".sql")
		if err != nil {
			return err
		}
		for _, stmt := range strings.Split(string(b), "--bun:split") {
			if _, err := store.DB.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return nil
}

// insertBusy adds transfers from..to of the busy account in one statement.
func insertBusy(ctx context.Context, store *db.Store, from, to int) error {
	_, err := store.DB.ExecContext(ctx, `
		WITH blk AS (SELECT index_block_hash, block_hash, block_height, parent_index_block_hash, parent_block_hash, burn_block_height, burn_block_time,
			row_number() OVER (ORDER BY block_height) - 1 AS k, count(*) OVER () AS nb FROM blocks WHERE canonical),
		g AS (SELECT i, blk.* FROM generate_series(?, ?) i JOIN blk ON blk.k = i % blk.nb),
		t AS (INSERT INTO txs (tx_id, index_block_hash, raw_tx, tx_index, type_id, status, raw_result, canonical, microblock_canonical,
				microblock_sequence, block_hash, block_height, parent_index_block_hash, parent_block_hash, burn_block_height, burn_block_time,
				parent_burn_block_time, nonce, fee_rate, sender_address, sponsored, anchor_mode, post_condition_mode, event_count)
			SELECT sha256(('busy' || i)::bytea), index_block_hash, (SELECT raw_tx FROM txs WHERE type_id = 0 LIMIT 1), 1000 + i, 0, 1, '\x0703', true, true,
				2147483647, block_hash, block_height, parent_index_block_hash, parent_block_hash, burn_block_height, burn_block_time, burn_block_time,
				i, 180, ?, false, 3, 1, 1 FROM g RETURNING tx_id, index_block_hash, block_height, tx_index),
		e AS (INSERT INTO stx_events (tx_id, index_block_hash, event_index, tx_index, block_height, microblock_sequence, canonical, microblock_canonical,
				asset_event_type_id, sender, recipient, amount)
			SELECT tx_id, index_block_hash, 0, tx_index, block_height, 2147483647, true, true, 1, ?, 'ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR', 1 FROM t)
		INSERT INTO principal_txs (principal, tx_id, index_block_hash, block_height, microblock_sequence, tx_index, canonical, microblock_canonical, roles)
			SELECT ?, tx_id, index_block_hash, block_height, 2147483647, tx_index, true, true, 33 FROM t`, from, to, busy, busy, busy)
	return err
}

var benchPaths = map[string]string{
	"stx-busy": "/extended/v1/address/" + busy + "/stx",
	"stx-idle": "/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/stx",
	"twt-busy": "/extended/v1/address/" + busy + "/transactions_with_transfers",
	"twt-idle": "/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/transactions_with_transfers",
	// The miner has a short history but a full page: the same page size as busy, the same cost.
	"twt-short": "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers",
	"block":     "/extended/v1/block",
	"multiple":  "/extended/v1/tx/multiple?tx_id=0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d,0x5620c39e63d1952df90e3ff0f1e344cb7b7e3a22a94e70f509b47da5b081243b",
	"events":    "/extended/v1/tx/events?address=" + busy,
	"contract":  "/extended/v1/contract/ST000000000000000000002AMW42H.genesis/events",
	"burnblock": "/extended/v1/block/by_burn_block_hash/0xfe4af4eb44d9b92afdc3113bc3fba48531502d6367ad42de3a7f1d1ea4065ba4",

	// A page of the busy account's transactions, and of a block's (busy's transfers fill every block).
	"v2-txs-busy":  "/extended/v2/addresses/" + busy + "/transactions",
	"v2-block-txs": "/extended/v2/blocks/5/transactions",

	// v2 block, burn block and PoX cycle reads.
	"v2-blocks":     "/extended/v2/blocks",
	"v2-block":      "/extended/v2/blocks/latest",
	"v2-burnblocks": "/extended/v2/burn-blocks",
	"pox-cycles":    "/extended/v2/pox/cycles",
	// The busy account's STX balance with its mempool figures, and the sample's BRC-20 operations.
	"v2-stx-busy":    "/extended/v2/addresses/" + busy + "/balances/stx?include_mempool=true",
	"brc20-activity": "/ordinals/v1/brc-20/activity",
}

// BenchmarkPaths measures each path in-process (handler.ServeHTTP, no network), a busy account
// (50,000 transfers) next to an idle one.
func BenchmarkPaths(b *testing.B) {
	store := withBusyAccount(b, 50_000)
	applyInscriptionSample(b, store)
	h := handler(b, store)
	names := make([]string, 0, len(benchPaths))
	for n := range benchPaths {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, benchPaths[name], nil)
			before := store.Statements()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", name, w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(store.Statements()-before)/float64(b.N), "stmts/op")
		})
	}
}

// BenchmarkGraphQLHop compares the balance path through the fixed GraphQL operation (and the
// reshaping) with the same resolvers called directly: the cost of the in-process GraphQL hop.
func BenchmarkGraphQLHop(b *testing.B) {
	store := withBusyAccount(b, 1000)
	h := handler(b, store)
	b.Run("rest-via-graphql", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, benchPaths["stx-idle"], nil)
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
		}
	})
	b.Run("resolvers-direct", func(b *testing.B) {
		r := &resolvers.Resolver{Store: store}
		f := false
		for b.Loop() {
			ctx := loaders.With(context.Background(), loaders.New(store))
			acct, err := r.Query().Account(ctx, "ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Account().StxBalance(ctx, acct, &f, nil, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Account().LatestTxID(ctx, acct); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Account().LatestMempoolTxID(ctx, acct); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func handler(b testing.TB, store *db.Store) http.Handler {
	srv := serve(b, store, rest.Options{ServerVersion: "bench"})
	return srv.Config.Handler
}

// TestLoad drives every path over loopback HTTP with 32 concurrent connections and reports
// requests/s and p50/p99 latency (make load; skipped unless STXGRAPH_LOAD is set, e.g. to 10s).
func TestLoad(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("STXGRAPH_LOAD"))
	if err != nil {
		t.Skip("set STXGRAPH_LOAD to a duration to run the load test")
	}
	store := withBusyAccount(t, 50_000)
	srv := serve(t, store, rest.Options{ServerVersion: "load"})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32, MaxConnsPerHost: 32}}
	names := make([]string, 0, len(benchPaths))
	for n := range benchPaths {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		lat := load(t, client, srv.URL+benchPaths[name], 32, d)
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("%-10s %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms\n", name, float64(len(lat))/d.Seconds(),
			ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100]))
	}
}

func load(t *testing.T, client *http.Client, url string, conns int, d time.Duration) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				start := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body) //nolint:errcheck // drained for connection reuse
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s: %d", url, resp.StatusCode)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
