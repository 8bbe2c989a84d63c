package server

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/rest"
)

// HTTPLimits bound what one client may hold: slow or oversized requests and idle connections.
// Zero fields take the Default… values.
type HTTPLimits struct {
	ReadHeaderTimeout time.Duration // to receive a request's headers
	BodyTimeout       time.Duration // to receive a request's body (WebSocket upgrades are exempt)
	IdleTimeout       time.Duration // an idle keep-alive connection is closed after this
	MaxHeaderBytes    int
	MaxBodyBytes      int64 // of a request to the API (the event observer has its own limit)
}

// Defaults of HTTPLimits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultMaxBodyBytes      = 1 << 20
)

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return l
}

// HTTPServer returns the http.Server for h on addr with limits l; with bodies set, it also caps
// and times out request bodies (the API; the event observer reads its own large bodies).
func HTTPServer(addr string, h http.Handler, l HTTPLimits, bodies bool) *http.Server {
	l = l.withDefaults()
	if bodies {
		h = limitBodies(h, l)
	}
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: l.ReadHeaderTimeout, IdleTimeout: l.IdleTimeout,
		MaxHeaderBytes: l.MaxHeaderBytes}
}

// limitBodies caps each request body at l.MaxBodyBytes and gives the client l.BodyTimeout to
// send it; an oversized body answers 413 in the error shape.
func limitBodies(next http.Handler, l HTTPLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > l.MaxBodyBytes {
			rest.WriteStatus(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than the limit of %d bytes", l.MaxBodyBytes))
			return
		}
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(l.BodyTimeout)) //nolint:errcheck // unsupported writers keep the server's deadline
		}
		r.Body = http.MaxBytesReader(w, r.Body, l.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}
