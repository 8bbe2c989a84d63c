package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// referenceRates are the reference API's req/s for reads of the mixes, measured on the same kind
// of 2-core machine on another day: per read from bench/REFERENCE.md (/stx of a different account
// each request, /block?limit=20), and 270–285 req/s on a diverse REST mix like restMix.
var referenceRates = map[string]float64{
	"REST mix":               278,
	"/address/{account}/stx": 136,
	"/block?limit=20":        72,
}

// mixesCommand is the load benchmark: the pgbench -S ceiling of the machine's PostgreSQL, each
// mix on a freshly started server that keeps answers, then each read of the mixes alone on a
// server that keeps none, with what every request cost the server and PostgreSQL.
func mixesCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mixes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := chainFlags(fs)
	var sv serverOptions
	fs.StringVar(&sv.bin, "server", "bin/stxgraph", "the stxgraph binary, started (serve) on the chain's database for each run")
	fs.IntVar(&sv.port, "port", 3998, "API port of the servers started; their event observer listens on the next one")
	fs.StringVar(&sv.log, "server-log", filepath.Join(os.TempDir(), "stxgraph-loadtest.log"), "file the servers' logs are appended to")
	lo := mixLoad(fs, 10*time.Second, "pgbench, of each mix and of each read alone (-c: also pgbench's clients)")
	runs := fs.Int("runs", 3, "runs of each mix, each on a freshly started server; the table shows the median one")
	quiet := fs.Float64("quiet-load", 1, "wait (up to two minutes) until the machine's 1-minute load average is at most this before starting")
	results := fs.String("results", "", "also write the tables to this Markdown file, keeping the previous run")
	note := fs.String("note", "", "what the run measured (e.g. the server's build), written with it to -results")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := lo.check("mixes"); err != nil {
		return err
	}
	if *runs < 1 {
		return fmt.Errorf("mixes: -runs must be at least 1")
	}
	var err error
	if sv.dsn, err = chainDB(ctx, *o, false, stderr); err != nil {
		return err
	}
	chain, err := loadChain(ctx, sv.dsn, *o)
	if err != nil {
		return err
	}
	if err := waitQuiet(ctx, *quiet, 2*time.Minute, stderr); err != nil {
		return err
	}
	rep := &report{conns: lo.conns, duration: lo.duration, loadAvg: loadAverage()}
	if rep.pgbench, err = pgbenchCeiling(ctx, lo.conns, lo.duration); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pgbench -S: %.0f tps\n", rep.pgbench)
	mixes := []*mix{restMix(chain), graphqlMix(chain)}
	for _, m := range mixes {
		lo.mix = m
		me, err := sv.measureMedian(ctx, *lo, *runs, stderr)
		if err != nil {
			return err
		}
		rep.mixes = append(rep.mixes, me)
	}
	srv, err := sv.start(ctx, false)
	if err != nil {
		return err
	}
	for _, m := range mixes {
		for i, r := range m.reads {
			lo.mix = m.only(i)
			me := measure(ctx, *lo, srv, stderr)
			me.weight = r.weight
			rep.reads = append(rep.reads, me)
		}
	}
	rep.uncachedRSS = peakRSS(srv.pid())
	srv.stop()
	if err := ctx.Err(); err != nil { // interrupted: the figures are not whole
		return err
	}
	md := rep.markdown(*note)
	if _, err := io.WriteString(stdout, md); err != nil {
		return err
	}
	if *results != "" {
		return writeResults(*results, md)
	}
	return nil
}

// measurement is what one load measured, and what it cost the server and PostgreSQL.
type measurement struct {
	name      string
	weight    int // the read's share of its mix, in percent (0: a whole mix)
	elapsed   time.Duration
	latencies []time.Duration // of the successful requests, sorted
	errors    int
	firstErr  string
	// The server's and PostgreSQL's CPU time over the load (PostgreSQL's -1 when no backend
	// served the database), and the server's SQL statements (-1 when its metrics do not say).
	serverCPU, postgresCPU time.Duration
	statements             float64
	peakRSS                int64 // kB, of the server started for this load alone (0: shared)
	// runRates are the req/s of every run of a load measured several times, in run order; the
	// measurement is the run of median rate.
	runRates []float64
}

// measure loads srv with lo, reading the server's and PostgreSQL's counters before and after.
// Requests cut off by the end of the run cost something too: a slight overcount per request.
func measure(ctx context.Context, lo loadOptions, srv *server, progress io.Writer) *measurement {
	lo.base = srv.base
	stmts0, ok0 := statements(ctx, srv.base)
	srv0, pg0 := processCPU("/proc", srv.pid()), backendCPU("/proc", srv.database)
	r := load(ctx, lo)
	srv1, pg1 := processCPU("/proc", srv.pid()), backendCPU("/proc", srv.database)
	stmts1, ok1 := statements(ctx, srv.base)
	m := &measurement{name: lo.mix.name, elapsed: r.paths[0].elapsed, serverCPU: srv1 - srv0,
		postgresCPU: cpuSince(pg0, pg1), statements: -1}
	if ok0 && ok1 {
		m.statements = stmts1 - stmts0
	}
	for _, p := range r.paths {
		m.latencies = append(m.latencies, p.latencies...)
		m.errors += p.errors
		if m.firstErr == "" && p.firstErr != "" {
			m.firstErr = p.path + ": " + p.firstErr
		}
	}
	slices.Sort(m.latencies)
	fmt.Fprintf(progress, "%s: %.0f req/s, p99 %s ms, %d errors\n", m.name, m.rate(), ms(m.latencies, 99), m.errors)
	return m
}

func (m *measurement) rate() float64 { return float64(len(m.latencies)) / m.elapsed.Seconds() }

// perRequest is v spread over the requests, timed or failed.
func (m *measurement) perRequest(v float64) float64 {
	return v / float64(max(1, len(m.latencies)+m.errors))
}

// serverOptions say how to start `stxgraph serve` on the chain's database.
type serverOptions struct {
	bin, dsn, log string
	port          int
}

// server is a running `stxgraph serve` that loadgen started.
type server struct {
	cmd      *exec.Cmd
	base     string
	database string        // the chain database's name, which its PostgreSQL backends show
	done     chan struct{} // closed when the process has ended
}

// pid is the server's process id, 0 for a server loadgen did not start and was given no pid of.
func (s *server) pid() int {
	if s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// measureFresh measures lo on a server that keeps answers, started for it alone.
func (o serverOptions) measureFresh(ctx context.Context, lo loadOptions, progress io.Writer) (*measurement, error) {
	srv, err := o.start(ctx, true)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	m := measure(ctx, lo, srv, progress)
	m.peakRSS = peakRSS(srv.pid())
	return m, nil
}

// measureMedian measures lo runs times, each on a server started for it alone, and returns the
// run of median rate with the rates of all: on a shared machine one run may be cut by half.
func (o serverOptions) measureMedian(ctx context.Context, lo loadOptions, runs int, progress io.Writer) (*measurement, error) {
	var all []*measurement
	for range runs {
		m, err := o.measureFresh(ctx, lo, progress)
		if err != nil {
			return nil, err
		}
		all = append(all, m)
	}
	return medianRun(all), nil
}

// medianRun is the run of median rate (the slower of the middle two of an even number), holding
// the rates of all in run order.
func medianRun(all []*measurement) *measurement {
	rates := make([]float64, len(all))
	for i, m := range all {
		rates[i] = m.rate()
	}
	sorted := slices.Clone(all)
	slices.SortStableFunc(sorted, func(a, b *measurement) int { return cmp.Compare(a.rate(), b.rate()) })
	median := sorted[(len(sorted)-1)/2]
	median.runRates = rates
	return median
}

// waitQuiet waits, at most maxWait, until the machine's 1-minute load average is at most limit:
// work left running from before (a test suite's databases being dropped, say) took half of the
// rate of a run started at once.
func waitQuiet(ctx context.Context, limit float64, maxWait time.Duration, progress io.Writer) error {
	deadline := time.Now().Add(maxWait)
	for {
		load, err := strconv.ParseFloat(loadAverage(), 64)
		left := time.Until(deadline)
		if err != nil || load <= limit || left <= 0 {
			return nil
		}
		fmt.Fprintf(progress, "load average %.2f, above %.2f: waiting for the machine to quieten\n", load, limit)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(5*time.Second, left)):
		}
	}
}

// start starts a server, with or without its answer cache, and waits until it answers.
func (o serverOptions) start(ctx context.Context, answers bool) (*server, error) {
	// A server still listening on the port would answer in place of the new one.
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)))
	if err != nil {
		return nil, fmt.Errorf("port %d is taken: %w", o.port, err)
	}
	l.Close()
	args := []string{"serve", "--database-url", o.dsn, "--port", strconv.Itoa(o.port), "--event-port", strconv.Itoa(o.port + 1)}
	if !answers {
		args = append(args, "--answer-cache-bytes", "0")
	}
	logFile, err := os.OpenFile(o.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the server has its own descriptor once started
	cmd := exec.Command(o.bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(o.port), database: databaseName(o.dsn), done: make(chan struct{})}
	go func() {
		cmd.Wait() //nolint:errcheck // how it ended shows in its log
		close(s.done)
	}()
	deadline := time.Now().Add(2 * time.Minute) // it applies migrations first
	for get(ctx, http.DefaultClient, s.base+"/extended") != nil {
		select {
		case <-s.done:
			return nil, fmt.Errorf("%s serve ended before answering (its log: %s)", o.bin, o.log)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s serve does not answer after 2 minutes (its log: %s)", o.bin, o.log)
		}
	}
	return s, nil
}

// stop ends the server gracefully, or kills it when it takes longer than half a minute.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended already
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill() //nolint:errcheck // as above
		<-s.done
	}
}

// report is the whole benchmark: the pgbench ceiling, the mixes and the reads alone.
type report struct {
	conns        int
	duration     time.Duration
	loadAvg      string
	pgbench      float64 // tps
	mixes, reads []*measurement
	uncachedRSS  int64 // kB, peak of the server that kept no answers
}

func (r *report) markdown(note string) string {
	var b strings.Builder
	b.WriteString(runLine(r.conns, r.duration, "per run", r.loadAvg, note))
	fmt.Fprintf(&b, "\npgbench -S from %d clients on 2 threads: %.0f tps. The reference's figures were measured on another day.\n",
		r.conns, r.pgbench)
	const cols = " requests | req/s | p50 ms | p99 ms | errors | server CPU ms/req | PostgreSQL CPU ms/req | sql/req | × pgbench -S | × reference |"
	b.WriteString("\n### Mixes: answer cache on, a freshly started server each\n\n| mix |" + cols + "\n|---" + strings.Repeat("|---", 10) + "|\n")
	for _, m := range r.mixes {
		fmt.Fprintf(&b, "| %s |%s\n", m.name, r.cells(m))
	}
	for _, m := range r.mixes {
		if len(m.runRates) > 1 {
			rates := make([]string, len(m.runRates))
			for i, x := range m.runRates {
				rates[i] = fmt.Sprintf("%.0f", x)
			}
			fmt.Fprintf(&b, "\n%s: %d runs, %s req/s; the table shows the median one.\n", m.name, len(rates), strings.Join(rates, ", "))
		}
	}
	b.WriteString("\n### Each read alone: its first computation (--answer-cache-bytes 0)\n\n| read | share of its mix |" + cols +
		"\n|---|---" + strings.Repeat("|---", 10) + "|\n")
	for _, m := range r.reads {
		fmt.Fprintf(&b, "| `%s` | %d%% |%s\n", strings.ReplaceAll(m.name, "|", "\\|"), m.weight, r.cells(m))
	}
	var rss []string
	for _, m := range r.mixes {
		rss = append(rss, fmt.Sprintf("%s %d MB", m.name, m.peakRSS/1024))
	}
	fmt.Fprintf(&b, "\nPeak RSS of the servers: %s; the one keeping no answers %d MB.\n", strings.Join(rss, ", "), r.uncachedRSS/1024)
	for _, m := range append(slices.Clone(r.mixes), r.reads...) {
		if m.firstErr != "" {
			fmt.Fprintf(&b, "\nFirst error of %s: %s\n", m.name, m.firstErr)
		}
	}
	return b.String()
}

// cells are a measurement's table cells after its name.
func (r *report) cells(m *measurement) string {
	ratio := func(of float64) string {
		switch x := m.rate() / of; {
		case of <= 0:
			return "–"
		case x >= 10:
			return fmt.Sprintf("%.0f", x)
		case x >= 0.1:
			return fmt.Sprintf("%.2f", x)
		default: // the slowest reads against pgbench
			return fmt.Sprintf("%.3f", x)
		}
	}
	stmts := "-"
	if m.statements >= 0 {
		stmts = fmt.Sprintf("%.1f", m.perRequest(m.statements))
	}
	cpu := func(d time.Duration) string {
		if d < 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", m.perRequest(d.Seconds()*1000))
	}
	return fmt.Sprintf(" %d | %.0f | %s | %s | %d | %s | %s | %s | %s | %s |", len(m.latencies), m.rate(),
		ms(m.latencies, 50), ms(m.latencies, 99), m.errors, cpu(m.serverCPU), cpu(m.postgresCPU), stmts,
		ratio(r.pgbench), ratio(referenceRates[m.name]))
}

// databaseName is the database a postgres:// URL names.
func databaseName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}
