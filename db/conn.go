package db

import (
	"context"
	"database/sql/driver"
	"net"
	"sync/atomic"

	"github.com/uptrace/bun/driver/pgdriver"
)

// The driver keeps a connection whose statement failed on the network side (a read cut off by
// the caller's deadline, say) only when that statement was a plain query; after a prepared
// statement it returns the connection to the pool with the statement still running in
// PostgreSQL and its answer unread, where the next caller would read it as its own. So every
// connection is guarded: the first failed read or write closes its socket, which ends the
// server's statement (the server notices the closed client, client_connection_check_interval),
// and the pool discards the connection before anyone uses it again.

// guardConnections is the connector option that guards every connection it opens.
func guardConnections(conf *pgdriver.Config) {
	dial := conf.Dialer
	conf.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &guardedConn{Conn: nc}, nil
	}
	conf.ResetSessionFunc = func(_ context.Context, cn *pgdriver.Conn) error {
		if g := guardOf(cn.Conn()); g != nil && g.broken.Load() {
			return driver.ErrBadConn
		}
		return nil
	}
}

// guardOf finds the guard under a connection, which TLS wraps.
func guardOf(c net.Conn) *guardedConn {
	for {
		switch v := c.(type) {
		case *guardedConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
}

// guardedConn is a network connection that closes itself at its first failed read or write.
type guardedConn struct {
	net.Conn
	broken atomic.Bool
}

func (c *guardedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.fail()
	}
	return n, err
}

func (c *guardedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil {
		c.fail()
	}
	return n, err
}

func (c *guardedConn) fail() {
	if c.broken.CompareAndSwap(false, true) {
		c.Conn.Close()
	}
}
