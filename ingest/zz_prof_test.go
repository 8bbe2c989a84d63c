package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

func pgCPU(t *testing.T, admin *sql.DB, dbname string) (float64, int) {
	rows, err := admin.Query("SELECT pid FROM pg_stat_activity WHERE datname = $1", dbname)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var total float64
	n := 0
	for rows.Next() {
		var pid int
		rows.Scan(&pid)
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		total += (u + st) / 100
		n++
	}
	return total, n
}

func goCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func TestZZProf(t *testing.T) {
	name := os.Getenv("PROF_FIXTURE")
	if name == "" {
		t.Skip()
	}
	admin, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	store := newStore(t)
	for i := 0; i < 6; i++ {
		if os.Getenv("PROF_WARM") == "" {
			store = newStore(t)
		} else if err := store.WipeChainData(context.Background()); err != nil {
			t.Fatal(err)
		}
		var dbname string
		store.DB.QueryRow("SELECT current_database()").Scan(&dbname)
		pg0, _ := pgCPU(t, admin, dbname)
		r, c, err := tsv.Open(fixtures.Path(t, "stacks/"+name+".tsv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		var perf *exec.Cmd
		if out := os.Getenv("PROF_PERF"); out != "" && i == 1 {
			var pid int
			admin.QueryRow("SELECT pid FROM pg_stat_activity WHERE datname = $1", dbname).Scan(&pid)
			perf = exec.Command("perf", "record", "-F", "2000", "-g", "-o", out, "-p", strconv.Itoa(pid))
			perf.Start()
			time.Sleep(300 * time.Millisecond)
		}
		g0 := goCPU()
		start := time.Now()
		p, err := NewIngester(store).Replay(context.Background(), r, ReplayOptions{})
		wall := time.Since(start)
		g1 := goCPU()
		if perf != nil {
			perf.Process.Signal(os.Interrupt)
			perf.Wait()
		}
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		pg1, n := pgCPU(t, admin, dbname)
		var load [3]float64
		b, _ := os.ReadFile("/proc/loadavg")
		fmt.Sscan(string(b), &load[0])
		t.Logf("%s: wall %v go %.0fms pg %.0fms (%d backends) applied %d blocks %d load %.1f", name, wall.Round(time.Millisecond), (g1-g0)*1000, (pg1-pg0)*1000, n, p.Applied, p.Blocks, load[0])
	}
}
