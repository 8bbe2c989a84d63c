package rest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/respcache"
	"github.com/stxgraph/stxgraph/rest"
)

// fixtureLines reads a shared TSV fixture's records, one per line.
func fixtureLines(t *testing.T, fixture string) [][]byte {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, "stacks/"+fixture+".tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// replayLines applies records through the real ingestion path.
func replayLines(t *testing.T, store *db.Store, lines [][]byte) {
	t.Helper()
	r, err := tsv.NewReader(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestAnswersKeptUntilTheChainMoves: a tip-dependent REST answer is computed once, served from
// memory while the tip stays, and computed again (with the new block in it) once a block is
// ingested.
func TestAnswersKeptUntilTheChainMoves(t *testing.T) {
	lines := fixtureLines(t, "mocknet")
	last := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte("\t/new_block\t")) {
			last = i
		}
	}
	if last < 1 {
		t.Fatal("fixture has no block to ingest last")
	}
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	replayLines(t, store, lines[:last])

	cache := respcache.New(1 << 20)
	srv := serve(t, store, rest.Options{Answers: cache})
	plain := serve(t, store, rest.Options{})
	get := func(base string) (string, int64) {
		t.Helper()
		before := store.Statements()
		res, err := http.Get(base + "/extended/v1/block?limit=3")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%d %s %v", res.StatusCode, body, err)
		}
		return string(body), store.Statements() - before
	}

	first, computed := get(srv.URL)
	again, served := get(srv.URL)
	if again != first {
		t.Fatalf("cached answer differs:\n%s\n%s", again, first)
	}
	if served >= computed {
		t.Errorf("repeated read ran %d statements, the first %d: not served from the cache", served, computed)
	}
	if s := cache.Stats(); s.Hits != 1 || s.Entries != 1 {
		t.Errorf("after two reads: %+v; want 1 hit, 1 entry", s)
	}

	replayLines(t, store, lines[last:])
	moved, recomputed := get(srv.URL)
	if moved == first {
		t.Fatal("answer from before the new block served after it")
	}
	if want, _ := get(plain.URL); moved != want {
		t.Errorf("recomputed answer differs from an uncached server's:\n%s\n%s", moved, want)
	}
	if recomputed <= served {
		t.Errorf("read after the block ran %d statements, a cached one %d: not recomputed", recomputed, served)
	}
	if s := cache.Stats(); s.Hits != 1 {
		t.Errorf("after the block: %+v; want still 1 hit", s)
	}
	if _, n := get(srv.URL); n != served {
		t.Errorf("read at the new tip ran %d statements; a cached read runs %d", n, served)
	}
}
