package rest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// TestHTTPBehaviour checks what every path shares: caching headers and 304s, deprecation,
// CORS and the version header.
func TestHTTPBehaviour(t *testing.T) {
	t.Parallel()
	store := replay(t, "mocknet")
	srv := serve(t, store, rest.Options{ServerVersion: "v-test"})
	off := serve(t, store, rest.Options{ServerVersion: "v-test", DisableDeprecated: true})

	get := func(t *testing.T, url string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	paths := []string{
		"/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/stx",
		"/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers",
		"/extended/v1/tx/multiple?tx_id=0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d",
		"/extended/v1/tx/events?address=ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR",
		"/extended/v1/contract/ST000000000000000000002AMW42H.genesis/events",
		"/extended/v1/block",
		"/extended/v1/block/by_burn_block_hash/0xfe4af4eb44d9b92afdc3113bc3fba48531502d6367ad42de3a7f1d1ea4065ba4",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			first, body := get(t, srv.URL+p, nil)
			etag := first.Header.Get("ETag")
			if first.StatusCode != http.StatusOK || etag == "" {
				t.Fatalf("status %d, ETag %q", first.StatusCode, etag)
			}
			// Answers are written whole, with their length, never chunked, however large.
			if first.ContentLength != int64(len(body)) || len(first.TransferEncoding) > 0 {
				t.Errorf("Content-Length %d, Transfer-Encoding %v for a body of %d bytes", first.ContentLength, first.TransferEncoding, len(body))
			}
			if cc := first.Header.Get("Cache-Control"); cc != "public, no-cache, must-revalidate" {
				t.Errorf("Cache-Control %q", cc)
			}
			if first.Header.Get("X-API-Version") != "v-test" || first.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("headers %v", first.Header)
			}
			for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag} {
				if again, _ := get(t, srv.URL+p, map[string]string{"If-None-Match": inm}); again.StatusCode != http.StatusNotModified {
					t.Errorf("If-None-Match %s: status %d, want 304", inm, again.StatusCode)
				}
			}
			if stale, _ := get(t, srv.URL+p, map[string]string{"If-None-Match": `"stale"`}); stale.StatusCode != http.StatusOK {
				t.Errorf("stale If-None-Match: status %d", stale.StatusCode)
			}
			deprecated := first.Header.Get("Warning") != ""
			gone, _ := get(t, off.URL+p, nil)
			if deprecated != (gone.StatusCode == http.StatusGone) {
				t.Errorf("deprecated %v but status %d with deprecated paths off", deprecated, gone.StatusCode)
			}
		})
	}

	t.Run("preflight", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/extended/v1/block", nil)
		req.Header.Set("Access-Control-Request-Headers", "x-custom")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
		}
	})
}
