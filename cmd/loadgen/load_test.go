package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// TestLoad runs the workers against a real loopback server: successes are timed per path,
// non-2xx answers are counted as errors, and the report names every path.
func TestLoad(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	r := load(context.Background(), loadOptions{base: srv.URL, paths: []string{"/ok?x=1", "/fail"}, conns: 4,
		duration: 300 * time.Millisecond, timeout: time.Second})
	ok, fail := r.paths[0], r.paths[1]
	if len(ok.latencies) == 0 || ok.errors != 0 {
		t.Errorf("/ok: %d timed requests, %d errors (%s)", len(ok.latencies), ok.errors, ok.firstErr)
	}
	if len(fail.latencies) != 0 || fail.errors == 0 || fail.firstErr != "HTTP 500" {
		t.Errorf("/fail: %d timed requests, %d errors, first %q", len(fail.latencies), fail.errors, fail.firstErr)
	}
	for i := 1; i < len(ok.latencies); i++ {
		if ok.latencies[i] < ok.latencies[i-1] {
			t.Fatal("latencies are not sorted")
		}
	}
	var out bytes.Buffer
	if err := r.write(&out, 4); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/ok?x=1", "/fail", "(all)", "first error on /fail: HTTP 500", "p99 ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestLoadEach loads the paths one after the other: each is timed over its own run, and the
// report has no mixed total.
func TestLoadEach(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	r := loadEach(context.Background(), loadOptions{base: srv.URL, paths: []string{"/a", "/b"}, conns: 2,
		duration: 200 * time.Millisecond, timeout: time.Second})
	for _, p := range r.paths {
		if len(p.latencies) == 0 || p.errors != 0 || p.elapsed < 150*time.Millisecond {
			t.Errorf("%s: %d timed requests, %d errors over %v", p.path, len(p.latencies), p.errors, p.elapsed)
		}
	}
	var out bytes.Buffer
	if err := r.write(&out, 2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "(all)") || !strings.Contains(out.String(), "each path alone") {
		t.Errorf("report of separate runs:\n%s", out.String())
	}
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	o := chaingen.Options{Seed: 3, Blocks: 3, TxsPerBlock: 4, Accounts: 6}
	r, err := placeholders(o)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := chaingen.New(o)
	got := r.Replace("/a/{busy}/{crowd}/{idle}/{contract}?{txids}")
	crowd := g.Accounts()[2].Address.String()
	if !strings.HasPrefix(got, "/a/"+g.Busy()+"/"+crowd+"/"+g.Idle()+"/"+g.ContractID()+"?tx_id=0x") || strings.Count(got, "tx_id=0x") != 5 {
		t.Errorf("placeholders gave %s", got)
	}
	// Every default path is filled, inside escaped GraphQL queries too; {account} is left for
	// each request to fill.
	for _, p := range fill(r, append(defaultPaths, uncachedPaths...)) {
		if unescaped, _ := url.QueryUnescape(p); strings.ContainsAny(strings.ReplaceAll(unescaped, "{account}", ""), "{}") &&
			!strings.HasPrefix(p, "/graphql") {
			t.Errorf("placeholder left in %s", p)
		}
		if strings.Contains(p, "%7Bbusy%7D") || strings.Contains(p, "{busy}") {
			t.Errorf("{busy} left in %s", p)
		}
	}
	if _, err := placeholders(chaingen.Options{Blocks: 1, TxsPerBlock: 1, Accounts: 4}); err == nil {
		t.Error("a chain without five transactions after genesis filled {txids}")
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"nope"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage") {
			t.Errorf("run(%q) = %d, stderr %q", args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"run", "-c", "0"}, &out, &errOut); code != 1 {
		t.Errorf("run -c 0 = %d, want 1", code)
	}
	if code := run(context.Background(), []string{"tsv"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "-o FILE") {
		t.Errorf("tsv without -o = %d, stderr %q", code, errOut.String())
	}
}

// TestTSVCommand writes a small chain as a gzip TSV file that the replay reader reads back.
func TestTSVCommand(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "chain.tsv.gz")
	var out, errOut bytes.Buffer
	args := []string{"tsv", "-o", path, "-blocks", "3", "-txs", "2", "-accounts", "5", "-calls", "1"}
	if code := run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("tsv: exit %d: %s", code, errOut.String())
	}
	r, c, err := tsv.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if rec.ID != int64(n) || rec.Payload == nil {
			t.Fatalf("record %d: id %d, payload %q", n, rec.ID, rec.Payload)
		}
	}
	if n != 8 || !strings.Contains(out.String(), "8 records, 4 blocks") {
		t.Errorf("read %d records; command said %q", n, out.String())
	}
}
