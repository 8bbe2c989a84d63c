package rest

import (
	"reflect"
	"testing"
)

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

// The address routes' ETag inputs are read from the operation's data as encoding/json would
// decode them: null ids are absent, escapes are undone, the page after them is never needed.
func TestAccountTag(t *testing.T) {
	t.Parallel()
	id := func(s string) *string { return &s }
	for _, c := range []struct {
		data string
		want principalTag
	}{
		{`{"account":{"latestTxId":"0xab","latestMempoolTxId":null,"balance":{"balance":"5","locked":"100","burnchain_unlock_height":42},"page":{}}}`,
			principalTag{LatestTxID: id("0xab"), Balance: lockTag{Locked: "100", BurnchainUnlockHeight: 42}}},
		{`{"account":{"balance":{"locked":"0","burnchain_unlock_height":0},"latestMempoolTxId":"0x\u0063d","latestTxId":null}}`,
			principalTag{LatestMempoolTxID: id("0xcd"), Balance: lockTag{Locked: "0"}}},
		{`{"account":null}`, principalTag{}},
		{`{"tip":{}}`, principalTag{}},
	} {
		if got := accountTag([]byte(c.data)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("accountTag(%s) = %+v (ids %q, %q), want %+v", c.data, got, deref(got.LatestTxID), deref(got.LatestMempoolTxID), c.want)
		}
	}
}
