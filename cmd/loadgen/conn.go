package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// conn is one keep-alive HTTP/1.1 connection that a worker drives itself: the request line is
// written as bytes and the answer read with http.ReadResponse. http.Client spends two
// goroutines and their hand-offs on every connection; on a machine whose cores the server
// shares with the load generator, that is CPU the server does not get (the reference figures
// were measured with wrk, which costs about 30 µs of CPU per request).
type conn struct {
	addr, host string
	timeout    time.Duration
	c          net.Conn
	br         *bufio.Reader
	req        []byte
	body       bytes.Buffer // a GraphQL answer, read for its errors
}

// newConn is a connection to base's host, dialled at the first request.
func newConn(base string, timeout time.Duration) (*conn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http://host:port", base)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &conn{addr: addr, host: u.Host, timeout: timeout}, nil
}

// get fetches path (with its query) and reads the whole body; an answer other than 2xx is an
// error, and so is a GraphQL answer (a path under /graphql) with errors. A failed exchange
// closes the connection; the next request dials again. A request still running at ctx's
// deadline ends with context.DeadlineExceeded.
func (c *conn) get(ctx context.Context, path string) error {
	deadline := time.Now().Add(c.timeout)
	end, ok := ctx.Deadline()
	if ok && end.Before(deadline) {
		deadline = end
	}
	status, err := c.exchange(ctx, deadline, path)
	if err != nil {
		c.close()
		if ok && !time.Now().Before(end) {
			return context.DeadlineExceeded
		}
		return err
	}
	success := status/100 == 2
	if b := c.body.Bytes(); graphQL(path) && (!success || bytes.Contains(b, []byte(`"errors":`))) {
		return fmt.Errorf("HTTP %d, GraphQL errors: %s", status, b[:min(len(b), 300)])
	}
	if !success {
		return fmt.Errorf("HTTP %d", status)
	}
	return nil
}

func graphQL(path string) bool { return strings.HasPrefix(path, "/graphql") }

// exchange writes the request and reads the answer by deadline, dialling first when the
// connection is closed, and keeps it open when it may.
func (c *conn) exchange(ctx context.Context, deadline time.Time, path string) (int, error) {
	if c.c == nil {
		nc, err := (&net.Dialer{Deadline: deadline}).DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return 0, err
		}
		c.c, c.br = nc, bufio.NewReaderSize(nc, 64<<10)
	}
	if err := c.c.SetDeadline(deadline); err != nil {
		return 0, err
	}
	c.req = append(append(append(append(c.req[:0], "GET "...), path...), " HTTP/1.1\r\nHost: "...), c.host...)
	c.req = append(c.req, "\r\n\r\n"...)
	if _, err := c.c.Write(c.req); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, err
	}
	var body io.Writer = io.Discard
	if graphQL(path) {
		c.body.Reset()
		body = &c.body
	}
	_, err = io.Copy(body, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.Close { // the server ends the connection: the next request dials again
		c.close()
	}
	return resp.StatusCode, nil
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c, c.br = nil, nil
	}
}
