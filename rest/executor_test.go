package rest_test

import (
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// The operations' data is written into buffers used again once decoded: answers computed at the
// same time, of every path of the fixture with every transaction type and event kind, are each
// the one computed alone.
func TestConcurrentAnswersAreTheirOwn(t *testing.T) {
	t.Parallel()
	srv := serve(t, replay(t, "poisonmicroblock"), rest.Options{ServerVersion: "test"})
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Error(err)
		}
		return resp.StatusCode, string(body)
	}
	calls := goldenCalls["poisonmicroblock"]
	type answer struct {
		status int
		body   string
	}
	alone := make([]answer, len(calls))
	for i, c := range calls {
		alone[i].status, alone[i].body = get(c.path)
	}
	var wg sync.WaitGroup
	for range 8 {
		for i, c := range calls {
			wg.Go(func() {
				if status, body := get(c.path); status != alone[i].status || body != alone[i].body {
					t.Errorf("%s computed with others: %d %.300s\nalone: %d %.300s", c.name, status, body, alone[i].status, alone[i].body)
				}
			})
		}
	}
	wg.Wait()
}
