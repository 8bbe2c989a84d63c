package server

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/faucet"
)

// clientIP puts the client's IP into the request context for the faucets' per-client limits.
func clientIP(trusted []netip.Prefix) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := RequestIP(r, trusted)
			next.ServeHTTP(w, r.WithContext(faucet.WithClientIP(r.Context(), ip)))
		})
	}
}

// RequestIP returns the client address of r. X-Forwarded-For is read only when the peer is one
// of the trusted proxies, and then from the right: the first entry that is not itself a trusted
// proxy is the client, since everything left of it could have been written by the client.
func RequestIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(h, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: the last proxy we trust saw client as its peer
		}
		client = a.Unmap()
		if !isTrusted(client, trusted) {
			break
		}
	}
	return client.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
