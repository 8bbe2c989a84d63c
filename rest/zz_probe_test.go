package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/rest"
)

type probeHook struct {
	mu   sync.Mutex
	qs   []string
	durs []time.Duration
}

func (h *probeHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context { return ctx }
func (h *probeHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	h.mu.Lock()
	h.qs = append(h.qs, e.Query)
	h.durs = append(h.durs, time.Since(e.StartTime))
	h.mu.Unlock()
}

func TestZZProbe(t *testing.T) {
	dsn := os.Getenv("PROBE_DSN")
	if os.Getenv("PROBE_PATHS") == "" {
		t.Skip()
	}
	var store *db.Store
	if dsn == "" {
		store = replay(t, "mocknet")
	} else {
		store = db.Open(dsn, db.PoolOptions{MaxOpen: 8})
	}
	h := serve(t, store, rest.Options{ServerVersion: "probe"}).Config.Handler
	hook := &probeHook{}
	store.DB.AddQueryHook(hook)
	for _, p := range strings.Fields(os.Getenv("PROBE_PATHS")) {
		for i := 0; i < 3; i++ {
			hook.mu.Lock()
			hook.qs, hook.durs = nil, nil
			hook.mu.Unlock()
			req := httptest.NewRequest(http.MethodGet, p, nil)
			w := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(w, req)
			if i == 2 {
				fmt.Printf("=== %s %d: %d statements, %v\n", p, w.Code, len(hook.qs), time.Since(start))
				for j, q := range hook.qs {
					var plan []string
					store.DB.NewRaw("EXPLAIN ANALYZE "+q).Scan(context.Background(), &plan)
					var pt, et string
					for _, l := range plan {
						if strings.Contains(l, "Planning Time") {
							pt = l
						}
						if strings.Contains(l, "Execution Time") {
							et = l
						}
					}
					q = strings.Join(strings.Fields(q), " ")
					if len(q) > 150 {
						q = q[:150]
					}
					fmt.Printf("   [%v |%s |%s] %s\n", hook.durs[j], pt, et, q)
				}
			}
		}
	}
}

func TestZZExplain(t *testing.T) {
	if os.Getenv("PROBE_EXPLAIN") == "" {
		t.Skip()
	}
	store := replay(t, "mocknet")
	q, _ := os.ReadFile(os.Getenv("PROBE_EXPLAIN"))
	ctx := context.Background()
	conn, err := store.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PROBE_ANALYZE") != "" {
		conn.ExecContext(ctx, "ANALYZE")
	}
	rows, err := conn.QueryContext(ctx, "EXPLAIN (ANALYZE, COSTS OFF) "+string(q))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l string
		rows.Scan(&l)
		if !strings.Contains(l, "never executed") {
			fmt.Println(l)
		}
	}
}

func TestZZPox(t *testing.T) {
	f := os.Getenv("PROBE_FIXTURE")
	if f == "" {
		t.Skip()
	}
	store := replay(t, f)
	ctx := context.Background()
	for _, q := range []string{
		"SELECT block_height, tx_index, stacker, name, locked::text, burnchain_unlock_height, data::text FROM pox_events WHERE canonical ORDER BY block_height, tx_index, event_index",
		"SELECT block_height, locked_address, locked_amount::text, unlock_height, contract_name FROM stx_lock_events WHERE canonical ORDER BY block_height",
		"SELECT block_height || ' burn=' || burn_block_height FROM chain_tip",
		"SELECT pox_v1_unlock_height || ' ' || pox_v2_unlock_height || ' ' || pox_v3_unlock_height || ' ' || pox_v4_unlock_height FROM pox_state",
	} {
		rows, err := store.DB.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			line := ""
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				line += fmt.Sprint(v) + " | "
			}
			if len(line) > 400 {
				line = line[:400]
			}
			fmt.Println(line)
		}
		fmt.Println("--")
	}
}
