package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/server"
)

// startHTTP serves h with limits on a loopback port through server.HTTPServer, as cmd does.
func startHTTP(t *testing.T, h http.Handler, l server.HTTPLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.HTTPServer(ln.Addr().String(), h, l, true)
	go srv.Serve(ln) //nolint:errcheck // closed below
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedByServer reports whether the server closes conn (EOF or reset) before the guard passes,
// reading and discarding anything it sends first.
func closedByServer(t *testing.T, conn net.Conn) bool {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second)) //nolint:errcheck // a guard against a hang, not a measurement
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}

// Slow or oversized clients cannot pin connections: headers and bodies have size limits and
// deadlines, and idle keep-alive connections are closed.
func TestHTTPLimits(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	h, err := server.New(server.Config{Store: a.store})
	if err != nil {
		t.Fatal(err)
	}
	addr := startHTTP(t, h, server.HTTPLimits{ReadHeaderTimeout: 300 * time.Millisecond, BodyTimeout: 300 * time.Millisecond,
		IdleTimeout: 300 * time.Millisecond, MaxHeaderBytes: 4 << 10, MaxBodyBytes: 16 << 10})
	base := "http://" + addr

	t.Run("headers too large", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, base+"/extended/v1/block", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", 64<<10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("status %d, want 431", resp.StatusCode)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		body := `{"query":"{ __typename }","variables":{"pad":"` + strings.Repeat("a", 32<<10) + `"}}`
		resp, err := http.Post(base+"/graphql", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var shape struct {
			StatusCode int    `json:"statusCode"`
			Message    string `json:"message"`
		}
		json.NewDecoder(resp.Body).Decode(&shape) //nolint:errcheck // checked through its fields
		if resp.StatusCode != http.StatusRequestEntityTooLarge || shape.StatusCode != 413 || !strings.Contains(shape.Message, "limit") {
			t.Fatalf("status %d, body %+v; want 413 in the error shape", resp.StatusCode, shape)
		}
	})
	t.Run("body too large without a length", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(`{"query":"{ __typename }","variables":{"pad":"`)) //nolint:errcheck // the server may stop reading
			pw.Write(bytes.Repeat([]byte("a"), 32<<10))                        //nolint:errcheck // idem
			pw.Write([]byte(`"}}`))                                            //nolint:errcheck // idem
			pw.Close()
		}()
		resp, err := http.Post(base+"/graphql", "application/json", pr)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && !bytes.Contains(b, []byte("error")) {
			t.Fatalf("a chunked body over the limit was accepted: %d %s", resp.StatusCode, b)
		}
	})
	t.Run("slow headers", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "GET /extended HTTP/1.1\r\nHost: x\r\n") //nolint:errcheck // checked by the read
		if !closedByServer(t, conn) {
			t.Fatal("a client that never finishes its headers keeps the connection")
		}
	})
	t.Run("slow body", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{") //nolint:errcheck // checked by the read
		if !closedByServer(t, conn) {
			t.Fatal("a client that never finishes its body keeps the connection")
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, "GET /extended HTTP/1.1\r\nHost: x\r\n\r\n") //nolint:errcheck // checked by the read
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // drained to reuse the connection
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if !closedByServer(t, conn) {
			t.Fatal("an idle keep-alive connection is never closed")
		}
	})
}

// A query that runs past the time limit is cancelled in PostgreSQL too, not only abandoned.
func TestQueryDeadlineCancelsStatement(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{QueryTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	// Hold the blocks table so that the query's statement waits in PostgreSQL.
	tx, err := a.store.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // released at the end
	if _, err := tx.ExecContext(ctx, "LOCK TABLE blocks IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(a.url + "/extended/v1/block")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(b, []byte("did not finish within")) {
		t.Fatalf("status %d %s; want 503 with the time limit's message", resp.StatusCode, b)
	}
	// The statement must be gone from the server while the lock is still held.
	dbtest.AwaitNoLockWaits(t, tx, 20*time.Second)
}
