package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

type balancePoint struct {
	BlockHeight     int
	Balance         string
	ChangedAtHeight *int
}

// balanceHistory reads an account's balanceHistory with the given arguments.
func balanceHistory(t *testing.T, a *api, principal, args string) ([]balancePoint, int64) {
	t.Helper()
	data, n := a.mustQuery(t, fmt.Sprintf(`{ account(principal: %q) { balanceHistory%s { blockHeight balance changedAtHeight } } }`, principal, args), nil)
	var out struct {
		Account struct{ BalanceHistory []balancePoint }
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out.Account.BalanceHistory, n
}

// balanceHistory agrees with stxBalance(atHeight:) at every point, spreads its points over the
// range, and costs the same number of statements for a short and a long range.
func TestBalanceHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newAPI(t, server.Config{})
	g, err := chaingen.New(chaingen.Options{Seed: 7, Blocks: 30, TxsPerBlock: 6, Accounts: 5, BusyShare: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Replay(ctx, a.store, g, nil); err != nil {
		t.Fatal(err)
	}
	busy := g.Busy()
	tip, err := a.store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Every height by default (the chain is shorter than 100 points), from the first change.
	all, short := balanceHistory(t, a, busy, "")
	if len(all) == 0 || all[len(all)-1].BlockHeight != int(tip.BlockHeight) {
		t.Fatalf("default range ends at %v, want the tip %d", all, tip.BlockHeight)
	}
	if c := all[0].ChangedAtHeight; c == nil || *c != all[0].BlockHeight {
		t.Errorf("the default range starts at %d, not at the first change (%v)", all[0].BlockHeight, c)
	}
	changes := 0
	for i, p := range all {
		if i > 0 && p.BlockHeight != all[i-1].BlockHeight+1 {
			t.Fatalf("heights %d then %d: a short range has every height", all[i-1].BlockHeight, p.BlockHeight)
		}
		if p.ChangedAtHeight != nil && *p.ChangedAtHeight == p.BlockHeight {
			changes++
		}
		data, _ := a.mustQuery(t, fmt.Sprintf(`{ account(principal: %q) { stxBalance(atHeight: %d) { balance } } }`, busy, p.BlockHeight), nil)
		if want := fmt.Sprintf(`{"account":{"stxBalance":{"balance":%q}}}`, p.Balance); string(data) != want {
			t.Errorf("height %d: balanceHistory says %s, stxBalance %s", p.BlockHeight, p.Balance, data)
		}
	}
	if changes < 3 {
		t.Errorf("the busy account's balance changed at %d heights", changes)
	}

	// A bounded number of points, evenly spread, both ends included.
	few, long := balanceHistory(t, a, busy, "(fromHeight: 1, points: 4)")
	var hs []int
	for _, p := range few {
		hs = append(hs, p.BlockHeight)
	}
	if want := []int{1, 1 + (int(tip.BlockHeight)-1)/3, 1 + 2*(int(tip.BlockHeight)-1)/3, int(tip.BlockHeight)}; fmt.Sprint(hs) != fmt.Sprint(want) {
		t.Errorf("points at %v, want %v", hs, want)
	}
	byHeight := map[int]string{}
	for _, p := range all {
		byHeight[p.BlockHeight] = p.Balance
	}
	for _, p := range few {
		if b, ok := byHeight[p.BlockHeight]; ok && b != p.Balance {
			t.Errorf("height %d: %s among 4 points, %s among all", p.BlockHeight, p.Balance, b)
		}
	}
	if short != long {
		t.Errorf("%d statements for %d points, %d for %d", short, len(all), long, len(few))
	}

	// Past the tip: cut at the tip; a range above it is empty.
	if ps, _ := balanceHistory(t, a, busy, fmt.Sprintf("(fromHeight: %d, toHeight: %d)", tip.BlockHeight, tip.BlockHeight+50)); len(ps) != 1 {
		t.Errorf("range from the tip past it: %+v", ps)
	}

	for _, args := range []string{"(points: 1)", "(points: 201)", "(fromHeight: 0)", "(fromHeight: 5, toHeight: 4)"} {
		out, _ := a.query(t, map[string]any{"query": fmt.Sprintf(`{ account(principal: %q) { balanceHistory%s { balance } } }`, busy, args)})
		if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] == nil || !strings.Contains(out.Errors[0].Message, "must") {
			t.Errorf("%s: errors %+v", args, out.Errors)
		}
	}
}
