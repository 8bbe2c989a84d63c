package db

import (
	"crypto/tls"
	"net"
	"testing"
)

// The pool finds a connection's guard also under TLS, which wraps it.
func TestGuardUnderTLS(t *testing.T) {
	t.Parallel()
	c1, c2 := net.Pipe()
	defer c2.Close()
	g := &guardedConn{Conn: c1}
	defer g.Close()
	if got := guardOf(tls.Client(g, &tls.Config{ServerName: "db"})); got != g {
		t.Errorf("guard under TLS: %v, want %v", got, g)
	}
	if got := guardOf(g); got != g {
		t.Errorf("guard: %v, want %v", got, g)
	}
	if got := guardOf(c2); got != nil {
		t.Errorf("an unguarded connection has guard %v", got)
	}
}
