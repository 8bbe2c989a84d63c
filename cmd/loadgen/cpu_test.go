package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	t.Parallel()
	// A name with a space and a parenthesis; utime 188 and stime 1176 ticks.
	line := "2226 (post gres) x) S 2225 2226 2226 0 -1 4194368 2831 0 0 0 188 1176 0 0 20 0 1 0 4156 223936512 36907\n"
	comm, cpu, err := statCPU(line)
	if err != nil || comm != "post gres) x" || cpu != 13640*time.Millisecond {
		t.Errorf("statCPU = %q, %v, %v", comm, cpu, err)
	}
	for _, bad := range []string{"", "1 (x S 1", "1 (x) S 1 2 3", "1 (x) S 1 2 3 4 5 6 7 8 9 10 y 5"} {
		if _, _, err := statCPU(bad); err == nil {
			t.Errorf("statCPU(%q) took it", bad)
		}
	}
}

// backendCPU reads the backends of one database from a /proc tree; cpuSince counts a process that
// started between two readings whole, and the others' differences, and knows nothing of a
// database no backend serves.
func TestBackendCPU(t *testing.T) {
	t.Parallel()
	proc := t.TempDir()
	write := func(pid int, comm, title string, ticks int) {
		dir := filepath.Join(proc, strconv.Itoa(pid))
		line := strconv.Itoa(pid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " + strconv.Itoa(ticks) + " 0 0 0 20 0 1 0 1 1 1\n"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(title), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(10, "postgres", "postgres: 15/main: postgres chain 127.0.0.1(5000) idle", 100)
	write(11, "postgres", "postgres: 15/main: postgres chain 127.0.0.1(5001) SELECT", 50)
	write(12, "stxgraph", "bin/stxgraph serve", 500)
	write(14, "postgres", "postgres: 15/main: checkpointer ", 700)
	write(15, "postgres", "postgres: 15/main: postgres chain_copy 127.0.0.1(5002) idle", 900)
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := backendCPU(proc, "chain")
	if len(before) != 2 || before[10] != time.Second || before[11] != 500*time.Millisecond {
		t.Fatalf("before: %v", before)
	}
	if got := processCPU(proc, 12); got != 5*time.Second {
		t.Errorf("processCPU = %v, want 5s", got)
	}
	if got := processCPU(proc, 99); got != 0 {
		t.Errorf("processCPU of no process = %v", got)
	}
	write(10, "postgres", "postgres: 15/main: postgres chain 127.0.0.1(5000) idle", 130) // 0.3 s more
	write(13, "postgres", "postgres: 15/main: postgres chain 127.0.0.1(5003) idle", 20)  // a new backend, 0.2 s
	write(14, "postgres", "postgres: 15/main: checkpointer ", 900)                       // not a backend of the chain
	if got := cpuSince(before, backendCPU(proc, "chain")); got != 500*time.Millisecond {
		t.Errorf("cpuSince = %v, want 500ms", got)
	}
	if got := cpuSince(backendCPU(proc, "other"), backendCPU(proc, "other")); got != -1 {
		t.Errorf("cpuSince of a database no backend serves = %v, want -1 (unknown)", got)
	}
}
