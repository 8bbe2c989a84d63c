package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/stxgraph/stxgraph/server"
)

// Queries wait for admission on both paths that run them, /graphql and a REST path's fixed
// operation; mutations do not: /metrics' time waited moves with the first two alone.
func TestQueriesAreAdmittedOnEveryPath(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	waited := func() float64 {
		t.Helper()
		resp, err := http.Get(a.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		f := families["stxgraph_operations_wait_seconds_total"]
		if f == nil || len(f.GetMetric()) != 1 {
			t.Fatalf("/metrics has no single stxgraph_operations_wait_seconds_total: %v", f)
		}
		return f.GetMetric()[0].GetCounter().GetValue()
	}
	for _, r := range []struct {
		name, path, body string // a POST with body, a GET without
		admitted         bool
	}{
		{"a /graphql query", "/graphql?query=" + url.QueryEscape("{ __typename }"), "", true},
		{"a REST path", "/extended/v1/block?limit=1", "", true},
		{"a /graphql mutation", "/graphql", `{"query":"mutation { __typename }"}`, false},
	} {
		before := waited()
		var resp *http.Response
		var err error
		if r.body == "" {
			resp, err = http.Get(a.url + r.path)
		} else {
			resp, err = http.Post(a.url+r.path, "application/json", strings.NewReader(r.body))
		}
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", r.name, resp.StatusCode)
		}
		if got := waited() > before; got != r.admitted {
			t.Errorf("%s: waited for admission %v, want %v", r.name, got, r.admitted)
		}
	}
}
