package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Records written from many goroutines wait in the buffer, then reach the output whole and each
// once when it is flushed.
func TestBatchedLog(t *testing.T) {
	var out bytes.Buffer
	b := newBatchedLog(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(b, "record %d-%d\n", g, i)
			}
		})
	}
	wg.Wait()
	if out.Len() >= 800*len("record 0-0\n") {
		t.Fatalf("%d bytes written before any flush: the records were not batched", out.Len())
	}
	b.flush()
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "record ") || seen[l] {
			t.Fatalf("torn or repeated record %q", l)
		}
		seen[l] = true
	}
	if len(seen) != 800 {
		t.Fatalf("%d of 800 records reached the output", len(seen))
	}
}
