// Package btcdtest runs a real btcd regtest node for tests: on free loopback ports, in a
// temporary directory, with the transaction and address indexes on, stopped at cleanup.
//
// The binary comes from PATH or from the project's .cache/bin (`make btcd` installs it there).
// Without it the tests skip, except under CI=true, where a missing btcd is a failure.
package btcdtest

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/btcsuite/btcd/rpcclient"
)

// Node is a running btcd.
type Node struct {
	Host     string // 127.0.0.1
	Port     int    // RPC port
	User     string
	Password string
	RPC      *rpcclient.Client
}

// Binary returns the path of btcd, skipping (or failing under CI=true) the test when there is none.
func Binary(tb testing.TB) string {
	tb.Helper()
	if p, err := exec.LookPath("btcd"); err == nil {
		return p
	}
	if root, err := moduleRoot(); err == nil {
		p := filepath.Join(root, ".cache", "bin", "btcd")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("btcd not found in PATH or .cache/bin (CI=true requires it: run `make btcd`)")
	}
	tb.Skip("btcd not found in PATH or .cache/bin: run `make btcd` to install it")
	return ""
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start runs a regtest btcd that mines to miningAddr, and waits until its RPC answers.
func Start(tb testing.TB, miningAddr string) *Node {
	tb.Helper()
	bin := Binary(tb)
	dir := tb.TempDir()
	conf := filepath.Join(dir, "btcd.conf")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	p2p, rpcPort := freePort(tb), freePort(tb)
	n := &Node{Host: "127.0.0.1", Port: rpcPort, User: "faucet", Password: "regtest-" + strconv.Itoa(rpcPort)}
	cmd := exec.Command(bin,
		"--configfile="+conf, "--datadir="+filepath.Join(dir, "data"), "--logdir="+filepath.Join(dir, "logs"),
		"--regtest", "--listen=127.0.0.1:"+strconv.Itoa(p2p), "--rpclisten=127.0.0.1:"+strconv.Itoa(rpcPort),
		"--rpcuser="+n.User, "--rpcpass="+n.Password, "--notls",
		"--txindex", "--addrindex", "--miningaddr="+miningAddr, "--debuglevel=warn",
	)
	// btcd keeps its default files under $HOME/.btcd: point HOME at the temporary directory.
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start btcd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	rc, err := rpcclient.New(&rpcclient.ConnConfig{
		Host: net.JoinHostPort(n.Host, strconv.Itoa(n.Port)), User: n.User, Pass: n.Password,
		HTTPPostMode: true, DisableTLS: true,
	}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(rc.Shutdown)
	n.RPC = rc
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := rc.GetBlockCount(); err == nil {
			return n
		} else if time.Now().After(deadline) {
			tb.Fatalf("btcd RPC did not come up: %v\n%s", err, out.String())
		}
		select {
		case err := <-exited:
			tb.Fatalf("btcd exited: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Generate mines n blocks (to the node's mining address) and returns their hashes as strings.
func (n *Node) Generate(tb testing.TB, blocks uint32) []string {
	tb.Helper()
	hashes, err := n.RPC.Generate(blocks)
	if err != nil {
		tb.Fatalf("generate %d: %v", blocks, err)
	}
	s := make([]string, len(hashes))
	for i, h := range hashes {
		s[i] = h.String()
	}
	return s
}

func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

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
