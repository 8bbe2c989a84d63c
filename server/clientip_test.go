package server_test

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

func TestRequestIP(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, tc := range []struct {
		peer, xff string
		want      string
	}{
		{"198.51.100.7:5000", "", "198.51.100.7"},
		{"198.51.100.7:5000", "203.0.113.9", "198.51.100.7"},        // untrusted peer: header ignored
		{"10.1.2.3:443", "203.0.113.9", "203.0.113.9"},              // trusted proxy names the client
		{"10.1.2.3:443", "1.1.1.1, 203.0.113.9", "203.0.113.9"},     // forged left entry ignored
		{"10.1.2.3:443", "203.0.113.9, 10.9.9.9", "203.0.113.9"},    // chain of trusted proxies
		{"10.1.2.3:443", "10.5.5.5, 10.9.9.9", "10.5.5.5"},          // only proxies: the leftmost
		{"10.1.2.3:443", "garbage, 10.9.9.9", "10.9.9.9"},           // malformed hop: the last trusted
		{"[::1]:443", "2001:db8::5", "2001:db8::5"},                 // IPv6 proxy
		{"[::ffff:198.51.100.7]:80", "203.0.113.9", "198.51.100.7"}, // v4-mapped peer, untrusted
		{"10.1.2.3:443", "", "10.1.2.3"},                            // proxy without header
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := server.RequestIP(r, proxies); got != tc.want {
			t.Errorf("peer %s X-Forwarded-For %q: %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}
