package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A connection follows the server: it dials again after an answer that closes the connection,
// reads chunked bodies, counts a non-2xx answer and a GraphQL answer with errors, gives up on
// an answer slower than its timeout, and ends with the run.
func TestConn(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/close":
			w.Header().Set("Connection", "close")
		case "/chunked":
			w.Write([]byte(strings.Repeat("x", 64<<10)))
			w.(http.Flusher).Flush()
			w.Write([]byte("end"))
		case "/missing":
			http.NotFound(w, r)
		case "/slow":
			time.Sleep(300 * time.Millisecond)
		case "/graphql":
			if r.URL.Query().Get("query") == "bad" {
				w.Write([]byte(`{"errors":[{"message":"no such field"}],"data":null}`))
				return
			}
			w.Write([]byte(`{"data":{"errorsField":"errors"}}`))
		}
	}))
	defer srv.Close()
	c, err := newConn(srv.URL, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ctx := context.Background()
	for _, step := range []struct {
		path, wantErr string
	}{
		{"/close", ""}, {"/close?again=1", ""}, {"/chunked", ""}, {"/missing", "HTTP 404"}, {"/slow", "timeout"}, {"/ok", ""},
		{"/graphql?query=ok", ""}, {"/graphql?query=bad", "GraphQL errors: {\"errors\":[{\"message\":\"no such field\"}]"},
	} {
		err := c.get(ctx, step.path)
		if (err == nil) != (step.wantErr == "") || (err != nil && !strings.Contains(err.Error(), step.wantErr)) {
			t.Errorf("%s: error %v, want %q", step.path, err, step.wantErr)
		}
	}
	ended, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := c.get(ended, "/slow"); err != context.DeadlineExceeded {
		t.Errorf("a request cut off by the end of the run: %v, want %v", err, context.DeadlineExceeded)
	}
	if _, err := newConn("https://example.org", time.Second); err == nil {
		t.Error("an https base URL was taken")
	}
}
