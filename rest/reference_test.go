package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goldenResponse records resp in the golden file name under testdata/<fixture>, and, with
// STXGRAPH_REFERENCE set, compares it with the reference API's answer to the same request.
func goldenResponse(t *testing.T, fixture, name string, resp *http.Response) {
	t.Helper()
	got := record(t, resp)
	golden(t, filepath.Join("testdata", fixture, name+".json"), got)
	if resp.Request != nil { // nil: a response recorded in-process, not a request over HTTP
		compareWithReference(t, fixture, resp.Request.URL.RequestURI(), got)
	}
}

// referenceServers maps fixtures to reference API servers holding the same chain, from
// STXGRAPH_REFERENCE: "fixture=http://host:port" pairs separated by commas or white space.
var referenceServers = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, pair := range strings.FieldsFunc(os.Getenv("STXGRAPH_REFERENCE"), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		if fixture, url, ok := strings.Cut(pair, "="); ok {
			out[fixture] = strings.TrimSuffix(url, "/")
		}
	}
	return out
})

// compareWithReference asks the reference server of fixture for uri and reports where its answer
// differs from ours (got, as record renders it): the status, whether an ETag is sent, and the
// body byte for byte, members in order. A 500 of the reference may be our 400: we answer the
// malformed input it fails on.
func compareWithReference(t *testing.T, fixture, uri string, got []byte) {
	t.Helper()
	base, ok := referenceServers()[fixture]
	if !ok {
		return
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + uri)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var ours struct {
		Status int             `json:"status"`
		ETag   bool            `json:"etag"`
		Body   json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(got, &ours); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusInternalServerError && ours.Status == http.StatusBadRequest {
		return
	}
	if resp.StatusCode != ours.Status {
		t.Errorf("reference answers %s with %d, we with %d: %s", uri, resp.StatusCode, ours.Status, body)
		return
	}
	if refTag := resp.Header.Get("ETag") != ""; refTag != ours.ETag {
		t.Errorf("reference sends an ETag for %s: %v, we: %v", uri, refTag, ours.ETag)
	}
	var a, b bytes.Buffer
	json.Compact(&a, ours.Body) //nolint:errcheck // an invalid body compares unequal
	json.Compact(&b, body)      //nolint:errcheck // as above
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("reference answers %s otherwise:\nours %s\nref  %s", uri, a.Bytes(), b.Bytes())
	}
}
