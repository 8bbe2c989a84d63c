package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteResults writes two runs: the file then holds the reference figures, the second run
// as the latest and the first as the previous one, and nothing older.
func TestWriteResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "RESULTS.md")
	run := func(path string, ms time.Duration, stmts float64) *result {
		return &result{paths: []*pathResult{{path: path, elapsed: time.Second, statements: stmts,
			latencies: []time.Duration{ms, ms, ms}}}, peakRSS: 2048}
	}
	for _, r := range []*result{run("/first", time.Millisecond, 2), run("/second", 2*time.Millisecond, 3), run("/third", 3*time.Millisecond, -1)} {
		if err := writeResults(path, r.markdown(32, time.Second, "0.5", "build x")); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	latest, previous := strings.Index(s, latestHeading), strings.Index(s, previousHeading)
	if latest < 0 || previous < latest || !strings.Contains(s, "## Reference figures") {
		t.Fatalf("sections missing or out of order:\n%s", s)
	}
	if !strings.Contains(s[latest:previous], "| `/third` | 3 | 3 | 3.00 | 3.00 | 0 | - |") {
		t.Errorf("latest run is not the third:\n%s", s[latest:previous])
	}
	if !strings.Contains(s[previous:], "| `/second` | 3 | 3 | 2.00 | 2.00 | 0 | 3.0 |") || strings.Contains(s, "/first") {
		t.Errorf("previous run is not the second alone:\n%s", s[previous:])
	}
	if strings.Count(s, "Peak RSS of the server: 2 MB.") != 2 || strings.Count(s, "build x.") != 2 {
		t.Errorf("peak RSS not reported for both runs:\n%s", s)
	}
}
