package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/internal/pgcluster"
)

// PostgreSQL stopped in the middle of ingestion and started again: meanwhile the API answers
// 503 with a clear message and the event observer 500 (so the node retries); afterwards both
// recover by themselves, and the chain ends as an uninterrupted import leaves it.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	want := uninterrupted(t)
	cluster := pgcluster.Start(t)
	url := cluster.URL("stxgraph")
	api, events := startServeOn(t, url)
	n := newNode(t, crashFixture)

	deliver := func(count int) {
		t.Helper()
		for i := 0; i < count && !n.done(); {
			status, err := n.post(events)
			if err != nil {
				t.Fatal(err)
			}
			if status == http.StatusOK {
				i++
			}
		}
	}
	deliver(len(n.records) / 2)
	cluster.Stop(t)

	for _, path := range []string{"/extended/v1/tx/events?address=SP3D6PV2ACBPEKYJTCMH7HEN02KP87QSP8KTEH335", "/extended/v1/status",
		"/extended/v1/address/SP3D6PV2ACBPEKYJTCMH7HEN02KP87QSP8KTEH335/stx"} {
		resp, err := http.Get(api + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var shape struct {
			StatusCode int    `json:"statusCode"`
			Message    string `json:"message"`
		}
		json.Unmarshal(body, &shape) //nolint:errcheck // checked through its fields
		if resp.StatusCode != http.StatusServiceUnavailable || shape.StatusCode != 503 || !strings.Contains(shape.Message, "database is unavailable") {
			t.Errorf("GET %s during the outage: %d %s; want 503 saying the database is unavailable", path, resp.StatusCode, body)
		}
	}
	resp, err := http.Post(api+"/graphql", "application/json", strings.NewReader(`{"query":"{ blocks(limit: 1) { height } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"code":"unavailable"`) {
		t.Errorf("GraphQL during the outage: %s; want the unavailable code", body)
	}
	before := n.next
	if status, err := n.post(events); err != nil || status != http.StatusInternalServerError || n.next != before {
		t.Fatalf("event observer during the outage: status %d, err %v; want 500 and the message not taken", status, err)
	}

	cluster.Restart(t)
	waitFor(t, time.Minute, "the API to recover", func() bool {
		resp, err := http.Get(api + "/extended/v1/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	deliver(len(n.records))
	if got := digestOf(t, url); got != want {
		t.Fatalf("after the outage the canonical state differs.\ngot:\n%s\nwant:\n%s", got, want)
	}
}
