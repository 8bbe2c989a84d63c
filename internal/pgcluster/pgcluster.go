// Package pgcluster runs a private PostgreSQL cluster for tests that stop and restart the
// database under a running stxgraph: initdb into a temporary directory, pg_ctl on a free
// loopback port. As root it runs the server as the "postgres" user, since initdb refuses root.
package pgcluster

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
)

// Cluster is one running (or stopped) PostgreSQL cluster.
type Cluster struct {
	bin, dir string
	port     int
	cred     *syscall.Credential
}

// binDir finds the PostgreSQL server binaries: $PG_BIN, else the Debian layout's version 15,
// else its newest installed version (scripts/postgres-up installs the distribution's).
func binDir() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	const preferred = "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(preferred, "initdb")); err == nil {
		return preferred
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool { return versionOf(found[i]) < versionOf(found[j]) })
	if len(found) > 0 {
		return filepath.Dir(found[len(found)-1])
	}
	return preferred
}

func versionOf(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Start creates and starts a cluster, stopped and removed when the test ends. Without the
// PostgreSQL binaries the test is skipped, unless CI is set.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := binDir()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL server binaries not found in %s (set PG_BIN): %v", bin, err)
		}
		t.Skipf("PostgreSQL server binaries not found in %s (set PG_BIN)", bin)
	}
	dir, err := os.MkdirTemp("", "stxgraph-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &Cluster{bin: bin, dir: filepath.Join(dir, "data"), port: freePort(t)}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user to run the server: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.command("initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nfsync = off\n"+
		"synchronous_commit = off\nfull_page_writes = off\nshared_buffers = 32MB\nmax_connections = 60\n", c.port, dir)
	f, err := os.OpenFile(filepath.Join(c.dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(conf) //nolint:errcheck // checked by Close
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.command("pg_ctl", "-D", c.dir, "-m", "immediate", "stop").Run() }) //nolint:errcheck // may be stopped
	c.Restart(t)
	return c
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.Dir = filepath.Dir(c.dir)
	return cmd
}

// URL is the connection URL of database name on the cluster.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// Stop shuts the server down as an operator's fast shutdown does: sessions are terminated
// and open transactions rolled back.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if out, err := c.command("pg_ctl", "-D", c.dir, "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// Restart starts the (stopped) server again on the same port and waits until it accepts
// connections.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	if out, err := c.command("pg_ctl", "-D", c.dir, "-l", filepath.Join(filepath.Dir(c.dir), "server.log"), "-w", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(filepath.Dir(c.dir), "server.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
