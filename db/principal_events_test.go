package db_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

const (
	heavy    = "ST1HEAVYHISTORY"
	light    = "ST2LIGHTHISTORY"
	contract = "ST1HEAVYHISTORY.token"
)

const seedChunk = 10000

// seedHistories stores n canonical events of every kind for heavy (and its contract), three for
// light, and three of each on a fork, then analyzes the tables as autovacuum would.
func seedHistories(tb testing.TB, store *db.Store, n int) {
	tb.Helper()
	// Kind-specific columns; ?0 is the principal, ?1 its contract.
	kinds := []struct{ table, columns string }{
		{"stx_events", "1, CASE WHEN g % 2 = 0 THEN ?0 ELSE 'ST3NOISE' END, CASE WHEN g % 2 = 1 THEN ?0 ELSE 'ST3NOISE' END, g, NULL"},
		{"ft_events", "1, ?1 || '::t', ?0, 'ST3NOISE', g"},
		{"nft_events", "1, ?1 || '::n', 'ST3NOISE', ?0, '\\x0100'::bytea"},
		{"stx_lock_events", "g, 100, ?0, 'pox-4'"},
		{"contract_logs", "?1, 'print', '\\x0100'::bytea"},
	}
	ctx := context.Background()
	for _, canonical := range []bool{true, false} {
		for who, count := range map[string]int{heavy: n, light: 3} {
			if !canonical {
				count = 3
			}
			for j, k := range kinds {
				// Event g of kind j sits at height g/10, event index 5*(g%10)+j: one position each.
				q := fmt.Sprintf(`INSERT INTO %s SELECT decode(md5(g || ?2), 'hex'), decode(md5((g / 10) || ?3::text), 'hex'), '',
					5 * (g %% 10) + %d, 0, g / 10, 2147483647, ?3, true, %s FROM generate_series(?4::int, ?5::int) g`, k.table, j, k.columns)
				tag := fmt.Sprint(k.table, who, canonical)
				for lo := 1; lo <= count; lo += seedChunk { // chunks stay within the pool's statement timeout
					if _, err := store.DB.ExecContext(ctx, q, who, who+".token", tag, canonical, lo, min(count, lo+seedChunk-1)); err != nil {
						tb.Fatalf("seed %s: %v", tag, err)
					}
				}
			}
		}
	}
	if _, err := store.DB.ExecContext(ctx, "ANALYZE stx_events, ft_events, nft_events, stx_lock_events, contract_logs"); err != nil {
		tb.Fatal(err)
	}
}

// lastQuery remembers the last statement a store ran, and counts them.
type lastQuery struct {
	mu sync.Mutex
	st db.Statement
	n  int
}

func (l *lastQuery) observe(_ context.Context, st db.Statement) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st, l.n = st, l.n+1
}

// ran returns the last statement and how many ran since the last call.
func (l *lastQuery) ran() (db.Statement, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, n := l.st, l.n
	l.n = 0
	return st, n
}

// A page of a long history is read along the partial indexes, one short index scan per kind and
// column, never by scanning an event table.
func TestEventsOfPrincipalsPlan(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	seedHistories(t, store, 3000)
	hook := &lastQuery{}
	store.Observe(hook.observe)
	ctx := context.Background()
	indexes := []string{"stx_events_sender_idx", "stx_events_recipient_idx", "ft_events_sender_idx", "ft_events_recipient_idx",
		"nft_events_sender_idx", "nft_events_recipient_idx", "stx_lock_events_address_idx", "contract_logs_contract_idx"}
	tests := []struct {
		name string
		ks   db.Keyset
	}{
		{"first page", db.Keyset{Limit: 21}},
		{"after a cursor", db.Keyset{Limit: 21, After: db.Cursor{Set: true, Key: [4]int64{1000, 2147483647, 0, 5}}}},
		{"last page", db.Keyset{Limit: 21, Reverse: true}},
	}
	for _, tc := range tests {
		rows, err := store.EventsOfPrincipals(ctx, []string{heavy, light, contract}, db.KindsOf(db.AllEventTypes), tc.ks)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 21+12+21 {
			t.Errorf("%s: %d rows, want %d (a page for heavy and its contract, light's 12)", tc.name, len(rows), 21+12+21)
		}
		var plan []string
		st, _ := hook.ran()
		if err := store.DB.NewRaw("EXPLAIN "+st.Text()).Scan(ctx, &plan); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		for _, idx := range indexes {
			if !strings.Contains(text, idx) {
				t.Errorf("%s: plan does not use %s:\n%s", tc.name, idx, text)
			}
		}
		if strings.Contains(text, "Seq Scan") {
			t.Errorf("%s: plan scans a table:\n%s", tc.name, text)
		}
	}
}

// Events of the kinds asked only, newest first, canonical only.
func TestEventsOfPrincipalsKinds(t *testing.T) {
	t.Parallel()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	seedHistories(t, store, 5)
	tests := []struct {
		kinds []db.EventType
		want  int // canonical events of light of these kinds (3 per kind)
	}{
		{[]db.EventType{db.EventStxLock}, 3},
		{[]db.EventType{db.EventStxAsset, db.EventFungibleTokenAsset, db.EventNonFungibleTokenAsset}, 9},
		{[]db.EventType{db.EventSmartContractLog}, 0}, // light is no contract
		{db.AllEventTypes, 12},
	}
	for _, tc := range tests {
		rows, err := store.EventsOfPrincipals(context.Background(), []string{light}, db.KindsOf(tc.kinds), db.Keyset{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != tc.want {
			t.Errorf("kinds %v: %d events, want %d", tc.kinds, len(rows), tc.want)
		}
		for i, r := range rows {
			p := r.Event.Position()
			if !p.Canonical || !db.KindsOf(tc.kinds).Has(db.EventTypeOf(r.Event)) {
				t.Errorf("kinds %v: row %d is %s, canonical %v", tc.kinds, i, db.EventTypeOf(r.Event), p.Canonical)
			}
			if i > 0 {
				q := rows[i-1].Event.Position()
				if [4]int32{q.BlockHeight, q.MicroblockSequence, q.TxIndex, q.EventIndex} == [4]int32{p.BlockHeight, p.MicroblockSequence, p.TxIndex, p.EventIndex} {
					t.Errorf("kinds %v: row %d repeats a position", tc.kinds, i)
				}
			}
		}
	}
}

// The cost of a page does not depend on the length of the history: compare light (3 events of
// each kind) with heavy (200,000 of each).
func BenchmarkEventsOfPrincipals(b *testing.B) {
	store := dbtest.New(b)
	b.Cleanup(func() { store.Close() })
	seedHistories(b, store, 200000)
	ctx := context.Background()
	for _, bc := range []struct {
		name      string
		principal string
		ks        db.Keyset
	}{
		{"light/first", light, db.Keyset{Limit: 21}},
		{"heavy/first", heavy, db.Keyset{Limit: 21}},
		{"heavy/deep-cursor", heavy, db.Keyset{Limit: 21, After: db.Cursor{Set: true, Key: [4]int64{100, 2147483647, 0, 0}}}},
		{"heavy/last", heavy, db.Keyset{Limit: 21, Reverse: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := store.EventsOfPrincipals(ctx, []string{bc.principal}, db.KindsOf(db.AllEventTypes), bc.ks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
