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
	// Escapes: an escaped quote does not end a string, an escaped backslash before the closing
	// quote does not hide it.
	esc := []byte(`{"a":"x\\","b":"q\"}","c":"\\\"","d":1}`)
	for key, want := range map[string]string{"a": `"x\\"`, "b": `"q\"}"`, "c": `"\\\""`, "d": `1`} {
		if got := string(pick(esc, key)); got != want {
			t.Errorf("pick %s of %s = %q, want %q", key, esc, got, want)
		}
	}
	for _, truncated := range []string{`{"a":`, `{"a":"x`, `{"a":"x\"`} {
		if got := pick([]byte(truncated), "a"); len(got) != 0 {
			t.Errorf("truncated document %s: got %q, want nothing", truncated, got)
		}
	}
}
