package db

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Unavailable reports whether err means the database could not be reached or went away (a
// refused or broken connection, a server shutting down or starting up), as opposed to a
// failed statement: the caller should try again later.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		code := pgErr.Field('C')
		// 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot
		// connect now (starting up or shutting down); 53300: too many connections.
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" || code == "53300"
	}
	var opErr *net.OpError
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || (errors.As(err, &opErr) && !opErr.Timeout())
}
