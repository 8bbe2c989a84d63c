package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// read loads one read of a mix, or the whole mix, on a running server: the requests are the
// read's own, and each is timed.
func TestReadLoadsOneRead(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Write([]byte(`{"data":{}}`))
	}))
	t.Cleanup(srv.Close)
	chain := testChain(50)
	lo := loadOptions{conns: 4, duration: 300 * time.Millisecond, timeout: time.Second, seed: 1}
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: &exec.Cmd{Process: self}, base: srv.URL}
	m, err := readLoad(context.Background(), chain, "rest", 0, lo, s, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.latencies) == 0 || m.errors != 0 {
		t.Fatalf("%d requests timed, %d errors", len(m.latencies), m.errors)
	}
	for p := range paths {
		if p == "/metrics" { // the server's statement count, read before and after
			continue
		}
		if !strings.HasPrefix(p, "/extended/v1/address/") || !strings.HasSuffix(p, "/stx") {
			t.Errorf("the balance read alone requested %s", p)
		}
	}
	for _, bad := range []struct {
		mix  string
		only int
	}{{"soap", -1}, {"graphql", 5}, {"rest", 99}} {
		if _, err := readLoad(context.Background(), chain, bad.mix, bad.only, lo, s, io.Discard); err == nil {
			t.Errorf("-mix %s -only %d: no error", bad.mix, bad.only)
		}
	}
}
