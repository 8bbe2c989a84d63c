package dbtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Cluster is a PostgreSQL server a test started in a directory of its own.
type Cluster struct {
	Port int
	dir  string // the data directory
	bin  string
}

// URL is the URL of database name on the cluster (user postgres, trust authentication).
func (c *Cluster) URL(name string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)),
		Path: "/" + name, RawQuery: "sslmode=disable"}
	return u.String()
}

// serverBinDir finds PostgreSQL's server binaries: $PG_BINDIR, else version 15's, else the
// newest installed.
func serverBinDir() string {
	if d := os.Getenv("PG_BINDIR"); d != "" {
		return d
	}
	const v15 = "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(v15, "initdb")); err == nil {
		return v15
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	best, bestV := v15, 0
	for _, f := range found {
		dir := filepath.Dir(f)
		if v, err := strconv.Atoi(filepath.Base(filepath.Dir(dir))); err == nil && v > bestV {
			best, bestV = dir, v
		}
	}
	return best
}

// StartReplicated starts a new primary cluster and a streaming replica of it made with
// pg_basebackup, each on a free loopback port, and stops and removes both when tb ends. Without
// PostgreSQL's server binaries it skips, except under CI=true, where it fails. The servers
// refuse to run as root, so as root they run as the postgres OS user.
func StartReplicated(tb testing.TB) (primary, replica *Cluster) {
	tb.Helper()
	bin := serverBinDir()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL server binaries are missing (CI=true requires them; make postgres installs them): %v", err)
		}
		tb.Skipf("PostgreSQL server binaries are missing at %s (set PG_BINDIR): %v", bin, err)
	}
	base := "" // the default temporary directory, which the postgres OS user may not reach: then /tmp
	if os.Geteuid() == 0 {
		base = "/tmp"
	}
	root, err := os.MkdirTemp(base, "stxgraph-replication-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(root) })
	run := runner(tb, root)

	primary = &Cluster{Port: freePort(tb), dir: filepath.Join(root, "primary"), bin: bin}
	run(filepath.Join(bin, "initdb"), "-D", primary.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	// TCP on loopback only: no socket file, whose path length is limited.
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\n"+
		"wal_level = replica\nmax_wal_senders = 4\nfsync = off\nfull_page_writes = off\n", primary.Port)
	appendFile(tb, filepath.Join(primary.dir, "postgresql.conf"), conf)
	appendFile(tb, filepath.Join(primary.dir, "pg_hba.conf"), "\nhost replication postgres 127.0.0.1/32 trust\n")
	primary.start(tb, run)

	replica = &Cluster{Port: freePort(tb), dir: filepath.Join(root, "replica"), bin: bin}
	run(filepath.Join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port), "-U", "postgres",
		"-D", replica.dir, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	appendFile(tb, filepath.Join(replica.dir, "postgresql.conf"), fmt.Sprintf("\nport = %d\nhot_standby = on\n", replica.Port))
	replica.start(tb, run)
	return primary, replica
}

// runner returns a function running a PostgreSQL program to completion, as the postgres OS
// user when the test runs as root (then root becomes that user's, for the data directories).
func runner(tb testing.TB, root string) func(name string, args ...string) {
	asPostgres := os.Geteuid() == 0
	if asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatalf("running as root, PostgreSQL needs the postgres OS user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(root, uid, gid); err != nil {
			tb.Fatal(err)
		}
	}
	return func(name string, args ...string) {
		tb.Helper()
		cmd := exec.Command(name, args...)
		if asPostgres {
			cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
	}
}

// start starts the cluster, waiting until it accepts connections, and stops it when tb ends.
func (c *Cluster) start(tb testing.TB, run func(string, ...string)) {
	tb.Helper()
	log := filepath.Join(filepath.Dir(c.dir), filepath.Base(c.dir)+".log")
	ctl := filepath.Join(c.bin, "pg_ctl")
	tb.Cleanup(func() {
		if tb.Failed() {
			if b, err := os.ReadFile(log); err == nil {
				tb.Logf("%s log:\n%s", filepath.Base(c.dir), b)
			}
		}
		run(ctl, "-D", c.dir, "-m", "immediate", "-w", "stop")
	})
	run(ctl, "-D", c.dir, "-l", log, "-w", "-t", "60", "start")
}

func appendFile(tb testing.TB, path, text string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		tb.Fatal(err)
	}
}

// freePort is a loopback port nothing listens on at the moment.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
