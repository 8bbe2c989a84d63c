package faucet_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/stacks/node"
)

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Neither a faucet key nor the node's address reaches the log, whatever goes wrong: rotation,
// rejections, an unreachable node, a malformed key. (Not parallel: it swaps the default logger.)
func TestSTXLogsNoSecrets(t *testing.T) {
	var logs lockedBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(prev)

	e := newEnv(t, envOptions{keys: []string{testKeyHex(t.Name() + "a"), testKeyHex(t.Name() + "b")}})
	e.node.fund(e.senders[0], 1_000_000_000_000, 0)
	e.node.fund(e.senders[1], 1_000_000_000_000, 0)
	e.node.reject[e.senders[0]] = "TooMuchChaining"
	e.checkTx(e.stx(testnetAddress("log 1"), false), testnetAddress("log 1"), faucet.DefaultSTXAmount)
	e.node.reject[e.senders[1]] = "BadAddressVersionByte"
	if r := e.stx(testnetAddress("log 2"), false); r.status != http.StatusInternalServerError {
		t.Errorf("%d %s, want 500", r.status, r.raw)
	}
	nodeHost := strings.TrimPrefix(e.node.srv.URL, "http://")
	e.node.srv.Close()
	if r := e.stx(testnetAddress("log 3"), true); r.status != http.StatusServiceUnavailable {
		t.Errorf("%d %s, want 503", r.status, r.raw)
	}

	bad := "zz" + e.keys[0][2:]
	_, err := faucet.NewSTX(faucet.STXConfig{Node: node.New("http://"+nodeHost, nil), Store: e.store, Keys: []string{e.keys[0], bad}})
	if err == nil || !strings.Contains(err.Error(), "entry 2") {
		t.Errorf("a malformed second key: %v", err)
	}
	out := logs.String() + "\n" + err.Error()
	for _, secret := range []string{e.keys[0][:64], e.keys[1][:64], bad[:64], nodeHost} {
		if strings.Contains(out, secret) {
			t.Errorf("log or error leaks %q:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "TooMuchChaining") || !strings.Contains(out, "node unreachable") {
		t.Errorf("the log does not say what went wrong:\n%s", out)
	}
}
