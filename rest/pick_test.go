package rest

import "testing"

func TestPick(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"tip":{"blockHeight":7,"s":"a,}\"{"},"account":{"latestTxId":null,"page":{"total":2,"results":[{"x":1},{"x":[2,3]}]}},"last":"z"}`)
	for _, c := range []struct {
		path []string
		want string
	}{
		{[]string{"tip", "blockHeight"}, `7`},
		{[]string{"tip", "s"}, `"a,}\"{"`},
		{[]string{"account", "latestTxId"}, `null`},
		{[]string{"account", "page", "results"}, `[{"x":1},{"x":[2,3]}]`},
		{[]string{"last"}, `"z"`},
		{[]string{"missing"}, ``},
		{[]string{"tip", "blockHeight", "deeper"}, ``},
		{[]string{"account", "page", "total", "x"}, ``},
	} {
		if got := string(pick(doc, c.path...)); got != c.want {
			t.Errorf("pick %v = %q, want %q", c.path, got, c.want)
		}
	}
	if got := pick([]byte(`{"a":`), "a"); len(got) != 0 {
		t.Errorf("truncated document: got %q, want nothing", got)
	}
}
