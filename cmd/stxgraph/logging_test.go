package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an io.Writer safe for the flushing goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Records written from many goroutines reach the output whole, each once, within the flush
// interval, and what is left is written by flush at exit.
func TestBatchedLog(t *testing.T) {
	out := &syncBuffer{}
	b := newBatchedLog(out)
	go b.flushEvery(10 * time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(b, "record %d-%d\n", g, i)
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "\n") < 800 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if !strings.HasPrefix(l, "record ") || seen[l] {
			t.Fatalf("torn or repeated record %q", l)
		}
		seen[l] = true
	}
	if len(seen) != 800 {
		t.Fatalf("%d of 800 records reached the output by the periodic flush", len(seen))
	}
	// Without the periodic flush, a record waits in the buffer until flush.
	exitOut := &syncBuffer{}
	e := newBatchedLog(exitOut)
	fmt.Fprintln(e, "last")
	if exitOut.String() != "" {
		t.Fatalf("a record was written at once: %q", exitOut.String())
	}
	e.flush()
	if exitOut.String() != "last\n" {
		t.Errorf("after flush the output is %q, want the buffered record", exitOut.String())
	}
}
