// Package pgproc runs PostgreSQL servers of its own, each in a data directory under a root
// directory, on free loopback ports with trust authentication: a primary made by initdb and
// streaming replicas of it made by pg_basebackup. The servers refuse to run as root, so as root
// their programs run as the postgres OS user (runuser), which then owns the root directory.
package pgproc

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
)

// Cluster is one PostgreSQL server in a data directory of its own.
type Cluster struct {
	Port int
	Dir  string // the data directory
	Log  string // the server's log file
	bin  string
	root string
}

// URL is the URL of database name on the cluster (user postgres, trust authentication).
func (c *Cluster) URL(name string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)),
		Path: "/" + name, RawQuery: "sslmode=disable"}
	return u.String()
}

// BinDir finds PostgreSQL's server binaries: $PG_BINDIR, else version 15's, else the newest
// installed.
func BinDir() string {
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

// Root makes a new root directory for clusters (under /tmp as root: the postgres OS user may
// not reach the default temporary directory) and gives it to the postgres OS user when running
// as root.
func Root(prefix string) (string, error) {
	base := ""
	if os.Geteuid() == 0 {
		base = "/tmp"
	}
	root, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return "", err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", fmt.Errorf("running as root, PostgreSQL needs the postgres OS user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(root, uid, gid); err != nil {
			return "", err
		}
	}
	return root, nil
}

// StartPrimary initialises a cluster in root/name that replicas can stream from, and starts it.
func StartPrimary(root, name string) (*Cluster, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Port: port, Dir: filepath.Join(root, name), Log: filepath.Join(root, name+".log"), bin: BinDir(), root: root}
	if _, err := os.Stat(filepath.Join(c.bin, "initdb")); err != nil {
		return nil, fmt.Errorf("PostgreSQL server binaries are missing at %s (set PG_BINDIR): %w", c.bin, err)
	}
	if err := c.run("initdb", "-D", c.Dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return nil, err
	}
	// TCP on loopback only: no socket file, whose path length is limited.
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\n"+
		"wal_level = replica\nmax_wal_senders = 4\nfsync = off\nfull_page_writes = off\n", c.Port)
	if err := appendFile(filepath.Join(c.Dir, "postgresql.conf"), conf); err != nil {
		return nil, err
	}
	if err := appendFile(filepath.Join(c.Dir, "pg_hba.conf"), "\nhost replication postgres 127.0.0.1/32 trust\n"); err != nil {
		return nil, err
	}
	return c, c.Start()
}

// StartReplica copies the running primary with pg_basebackup into root/name as a hot standby
// streaming from it, and starts it.
func (c *Cluster) StartReplica(name string) (*Cluster, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	r := &Cluster{Port: port, Dir: filepath.Join(c.root, name), Log: filepath.Join(c.root, name+".log"), bin: c.bin, root: c.root}
	if err := r.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres",
		"-D", r.Dir, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync"); err != nil {
		return nil, err
	}
	if err := appendFile(filepath.Join(r.Dir, "postgresql.conf"), fmt.Sprintf("\nport = %d\nhot_standby = on\n", r.Port)); err != nil {
		return nil, err
	}
	return r, r.Start()
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() error {
	return c.run("pg_ctl", "-D", c.Dir, "-l", c.Log, "-w", "-t", "60", "start")
}

// Stop stops the server at once (no checkpoint: a crash, as far as the data is concerned).
func (c *Cluster) Stop() error { return c.run("pg_ctl", "-D", c.Dir, "-m", "immediate", "-w", "stop") }

// RestartImmediate crashes and restarts the server: every connection drops, and the server
// recovers from its WAL.
func (c *Cluster) RestartImmediate() error {
	return c.run("pg_ctl", "-D", c.Dir, "-l", c.Log, "-m", "immediate", "-w", "-t", "60", "restart")
}

// run runs one of the server's programs to completion, as the postgres OS user when root.
func (c *Cluster) run(program string, args ...string) error {
	name := filepath.Join(c.bin, program)
	cmd := exec.Command(name, args...)
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	cmd.Dir = c.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", program, strings.Join(args, " "), err, out)
	}
	return nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// FreePort is a loopback port nothing listens on at the moment.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
