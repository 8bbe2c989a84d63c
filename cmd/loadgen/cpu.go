package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of the CPU times in /proc/PID/stat: 100 on the
// Linux architectures loadgen runs on (Go cannot ask sysconf for it without cgo).
const clockTicks = 100

// statCPU reads a /proc/PID/stat line: the process's command name and the CPU time (user and
// system) it has spent.
func statCPU(line string) (comm string, cpu time.Duration, err error) {
	// The name is in parentheses and may hold spaces and parentheses itself.
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return "", 0, errors.New("no command name in /proc stat line")
	}
	// After the name come the fields from the third on (proc(5)): utime is the 14th, stime the 15th.
	f := strings.Fields(line[end+1:])
	if len(f) < 13 {
		return "", 0, errors.New("short /proc stat line")
	}
	user, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return "", 0, err
	}
	sys, err := strconv.ParseInt(f[12], 10, 64)
	if err != nil {
		return "", 0, err
	}
	return line[open+1 : end], time.Duration(user+sys) * time.Second / clockTicks, nil
}

// processCPU is the CPU time a process has spent so far (0 when it cannot be read).
func processCPU(proc string, pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	_, cpu, _ := statCPU(string(b))
	return cpu
}

// backendCPU is the CPU time spent so far by each PostgreSQL backend serving database, by pid:
// a backend's title (its command line) names its database, so the cluster's other work (its
// background processes, other databases' clients) is left out.
func backendCPU(proc, database string) map[int]time.Duration {
	out := map[int]time.Duration{}
	entries, _ := os.ReadDir(proc)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil { // it has just exited
			continue
		}
		name, cpu, err := statCPU(string(b))
		if err != nil || name != "postgres" {
			continue
		}
		if title, err := os.ReadFile(filepath.Join(proc, e.Name(), "cmdline")); err == nil &&
			strings.Contains(string(title), " "+database+" ") {
			out[pid] = cpu
		}
	}
	return out
}

// cpuSince is the CPU time the processes spent between two readings of backendCPU. A process
// that started in between counts whole; one that ended in between is lost (a backend of a
// closed connection: the servers keep theirs open). With no backend in either reading it is
// unknown, -1: the server serves another database than the one read.
func cpuSince(before, after map[int]time.Duration) time.Duration {
	if len(before) == 0 && len(after) == 0 {
		return -1
	}
	var d time.Duration
	for pid, cpu := range after {
		d += cpu - before[pid]
	}
	return d
}
