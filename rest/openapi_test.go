package rest_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/rest"
)

// TestOpenAPIMatchesRoutes checks that the served OpenAPI document describes exactly the paths
// the adapter registers.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	store := replay(t, "")
	srv := serve(t, store, rest.Options{})
	resp, err := http.Get(srv.URL + "/extended/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %v %q", err, doc.OpenAPI)
	}
	var documented []string
	for p := range doc.Paths {
		documented = append(documented, p)
	}

	r := mux.NewRouter()
	realAPI, err := rest.New(schemaOf(store), rest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	realAPI.Register(r)
	seen := map[string]bool{}
	var served []string
	r.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error { //nolint:errcheck // the walk function never fails
		tpl, _ := route.GetPathTemplate()
		tpl = strings.TrimSuffix(tpl, "/")
		tpl = strings.Replace(tpl, "{hash}", "{burn_block_hash}", 1)
		if (strings.HasPrefix(tpl, "/extended/v1/") || strings.HasPrefix(tpl, "/extended/v2/")) && !strings.HasPrefix(tpl, "/extended/v1/openapi") && tpl != "/extended/v1/status" && !seen[tpl] {
			seen[tpl] = true
			served = append(served, tpl)
		}
		return nil
	})
	sort.Strings(documented)
	sort.Strings(served)
	if strings.Join(documented, "\n") != strings.Join(served, "\n") {
		t.Errorf("documented paths:\n%s\nserved paths:\n%s", strings.Join(documented, "\n"), strings.Join(served, "\n"))
	}
}
