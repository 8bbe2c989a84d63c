package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// testChain is a small chain to draw from: n accounts, blocks and transactions.
func testChain(n int) *chainParams {
	c := &chainParams{contract: "ST000000000000000000002AMW42H.counter", contractEvents: n}
	for i := range n {
		c.accounts = append(c.accounts, account{address: fmt.Sprintf("ST%d", i), txs: i, events: 2 * i})
		c.blocks = append(c.blocks, block{height: i + 1, burnHash: fmt.Sprintf("%064x", i)})
		c.txIDs = append(c.txIDs, fmt.Sprintf("0x%064x", i))
	}
	return c
}

// Each mix's weights are percentages summing to 100, and reads are drawn in proportion to them.
func TestMixWeights(t *testing.T) {
	t.Parallel()
	c := testChain(10)
	for _, m := range []*mix{restMix(c), graphqlMix(c), combinedMix(c)} {
		want := 100
		if m.name == combinedMix(c).name {
			want = 200
		}
		if m.total != want {
			t.Errorf("%s: weights sum to %d, want %d", m.name, m.total, want)
		}
		const draws = 200_000
		counts := make([]int, len(m.reads))
		rnd := rand.New(rand.NewPCG(1, 2))
		for range draws {
			counts[m.pick(rnd)]++
		}
		names := map[string]bool{}
		for i, r := range m.reads {
			share, want := float64(counts[i])/draws, float64(r.weight)/float64(m.total)
			if math.Abs(share-want) > 0.005 {
				t.Errorf("%s: %s drawn %.3f of the time, want %.3f", m.name, r.name, share, want)
			}
			if names[r.name] {
				t.Errorf("%s: two reads named %s", m.name, r.name)
			}
			names[r.name] = true
		}
	}
	if only := restMix(c).only(2); len(only.reads) != 1 || only.pick(rand.New(rand.NewPCG(1, 1))) != 0 || only.name != only.reads[0].name {
		t.Errorf("a read alone: %+v", only)
	}
}

// The same seed and stream draw the same requests; over many draws, the accounts (by
// popularity), the blocks and the transactions drawn are every one of them, not a prefix.
func TestDrawer(t *testing.T) {
	t.Parallel()
	c := testChain(300)
	m := combinedMix(c)
	sequence := func(seed, stream uint64) []string {
		d := newDrawer(c, seed, stream)
		var out []string
		for range 200 {
			out = append(out, m.reads[m.pick(d.rnd)].path(d))
		}
		return out
	}
	if a, b := sequence(7, 3), sequence(7, 3); !slices.Equal(a, b) {
		t.Error("the same seed and stream drew different requests")
	}
	if a, b := sequence(7, 3), sequence(7, 4); slices.Equal(a, b) {
		t.Error("two streams drew the same requests")
	}
	d := newDrawer(c, 1, 1)
	accounts, blocks, txs := map[string]int{}, map[int]bool{}, map[string]bool{}
	for range 300_000 {
		accounts[d.account().address]++
		blocks[d.block().height] = true
		txs[d.txID()] = true
	}
	if len(accounts) != 300 || len(blocks) != 300 || len(txs) != 300 {
		t.Errorf("drew %d accounts, %d blocks, %d transactions of 300 each", len(accounts), len(blocks), len(txs))
	}
	if head, tail := accounts["ST0"], accounts["ST299"]; head < 20*tail {
		t.Errorf("the first account was drawn %d times, the last %d: no popular head", head, tail)
	}
	if d.below(0) != 0 {
		t.Error("an offset into an empty list")
	}
}

// Every read draws a path the server serves: REST under /extended/v1 with every parameter
// filled and offsets within the histories, GraphQL queries valid against the schema.
func TestMixPaths(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	c := testChain(50)
	d := newDrawer(c, 1, 1)
	for _, r := range combinedMix(c).reads {
		for range 50 {
			p := r.path(d)
			u, err := url.Parse(p)
			if err != nil {
				t.Fatalf("%s: %s: %v", r.name, p, err)
			}
			if strings.ContainsAny(u.Path, "{}") {
				t.Errorf("%s: placeholder left in %s", r.name, p)
			}
			if u.Path == "/graphql" {
				if _, errs := gqlparser.LoadQuery(schema, u.Query().Get("query")); errs != nil {
					t.Errorf("%s: %v", r.name, errs)
				}
				continue
			}
			if !strings.HasPrefix(p, "/extended/v1/") {
				t.Errorf("%s: %s is not a REST path", r.name, p)
			}
			if off := u.Query().Get("offset"); off != "" {
				if n, err := strconv.Atoi(off); err != nil || n < 0 || n >= 100 {
					t.Errorf("%s: offset %q beyond the histories", r.name, off)
				}
			}
		}
	}
}

// loadSchema reads the server's GraphQL schema files.
func loadSchema(t *testing.T) *ast.Schema {
	t.Helper()
	files, _ := filepath.Glob("../../schema/*.graphql")
	var sources []*ast.Source
	for _, f := range append([]string{"../../schema.graphql"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, &ast.Source{Name: f, Input: string(b)})
	}
	schema, err := gqlparser.LoadSchema(sources...)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}
