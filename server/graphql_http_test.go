package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

// GraphQL over HTTP: each request gets the status and media type of GraphQL over HTTP (those of
// gqlgen's transports) and a JSON body with its errors and data, compact as encoding/json
// would write it.
func TestGraphQLOverHTTP(t *testing.T) {
	a := newAPI(t, server.Config{})
	get := func(params string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, a.url+"/graphql?"+params, nil)
		return r
	}
	post := func(body string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, a.url+"/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	q := func(query string) string { return "query=" + url.QueryEscape(query) }
	for _, c := range []struct {
		name        string
		req         *http.Request
		accept      string
		status      int
		contentType string
		data        string // the data member, "" when it must be null
		err         string // a part of the first error's message, "" for no errors
		code        string // the first error's code, when it has one
	}{
		{"a query by GET", get(q(`{ chainTip { blockHeight } }`)), "", 200, "application/json", `{"chainTip":{"blockHeight":0}}`, "", ""},
		{"a query by POST", post(`{"query":"{ chainTip { blockHeight } }"}`), "", 200, "application/json", `{"chainTip":{"blockHeight":0}}`, "", ""},
		{"variables", post(`{"query":"query($h: Int) { block(height: $h) { hash } }","variables":{"h":5}}`), "", 200, "application/json", `{"block":null}`, "", ""},
		{"a field's error beside the data", get(q(`{ block { hash } }`)), "", 200, "application/json", `{"block":null}`, "give a height or a hash", "invalid"},
		{"a syntax error", get(q(`{ chainTip {`)), "", 422, "application/json", "", "Expected Name", "GRAPHQL_PARSE_FAILED"},
		{"a syntax error, asked as graphql-response+json", get(q(`{ chainTip {`)), "application/graphql-response+json", 400, "application/graphql-response+json", "", "Expected Name", "GRAPHQL_PARSE_FAILED"},
		{"any media type", get(q(`{ chainTip { blockHeight } }`)), "text/html, */*;q=0.8", 200, "application/json", `{"chainTip":{"blockHeight":0}}`, "", ""},
		{"a mutation by GET", get(q(`mutation { faucetStx(address: "ST000000000000000000002AMW42H") { txId } }`)), "", 406, "application/json", "", "GET requests only allow query operations", "invalid"},
		{"variables that are not JSON", get(q(`{ chainTip { blockHeight } }`) + "&variables=%7B"), "", 400, "application/json", "", "variables could not be decoded", "invalid"},
		{"extensions that are not JSON", get(q(`{ chainTip { blockHeight } }`) + "&extensions=x"), "", 400, "application/json", "", "extensions could not be decoded", "invalid"},
		{"a body that is not JSON", post(`{"query":`), "", 400, "application/json", "", "json request body could not be decoded", "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.accept != "" {
				c.req.Header.Set("Accept", c.accept)
			}
			resp, body := send(t, c.req)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != c.contentType {
				t.Errorf("%d %s, want %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), c.status, c.contentType, body)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, body); err != nil || !bytes.Equal(compact.Bytes(), body) {
				t.Fatalf("the body is not compact JSON (%v): %s", err, body)
			}
			var got struct {
				Errors []struct {
					Message    string
					Extensions struct{ Code string }
				}
				Data json.RawMessage
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if data := string(got.Data); (c.data == "" && data != "null") || (c.data != "" && data != c.data) {
				t.Errorf("data %s, want %q", data, c.data)
			}
			switch {
			case c.err == "" && len(got.Errors) > 0:
				t.Errorf("errors %+v", got.Errors)
			case c.err != "" && (len(got.Errors) == 0 || !strings.Contains(got.Errors[0].Message, c.err) || got.Errors[0].Extensions.Code != c.code):
				t.Errorf("errors %+v, want one saying %q with code %q", got.Errors, c.err, c.code)
			}
		})
	}
}

// A response goes out with its length, however large, not chunked: the schema's types with
// their descriptions are tens of kilobytes.
func TestGraphQLResponsesCarryTheirLength(t *testing.T) {
	a := newAPI(t, server.Config{Introspection: true})
	query := `{ __schema { types { name description fields { name description } } } }`
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(method, a.url+"/graphql?query="+url.QueryEscape(query), nil)
		if method == http.MethodPost {
			body, _ := json.Marshal(map[string]string{"query": query})
			req, _ = http.NewRequest(method, a.url+"/graphql", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		resp, body := send(t, req)
		if resp.StatusCode != http.StatusOK || len(body) < 16<<10 {
			t.Fatalf("%s: %d, %d bytes: %s", method, resp.StatusCode, len(body), body)
		}
		if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("%s: Content-Length %d and Transfer-Encoding %v for a body of %d bytes", method, resp.ContentLength, resp.TransferEncoding, len(body))
		}
	}
}

// send sends req and returns its response with the whole body read.
func send(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
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

// Concurrent operations write their answers into buffers of one pool, each used again once its
// answer is written: every answer is the one its query gets alone, whatever ran beside it.
func TestConcurrentAnswersStayTheirOwn(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 12, txsPerBlock: 4, eventsPerTx: 2, sender: testSender}.seed(t, a.store)
	queries := []string{
		`{ blocksConnection(first: 12) { nodes { height hash transactions(first: 4) { nodes { txId feeRate sender { principal } events(limit: 2) { __typename } } } } } }`,
		`{ block(height: 3) { height hash transactions(first: 2) { nodes { txId } } } }`,
		`{ chainTip { blockHeight } }`,
	}
	alone := make([]string, len(queries))
	for i, q := range queries {
		data, _ := a.mustQuery(t, q, nil)
		alone[i] = string(data)
	}
	// Sent from other goroutines than the test's, so failures are reported, not fatal.
	ask := func(q string) (string, error) {
		resp, err := http.Get(a.url + "/graphql?query=" + url.QueryEscape(q))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var out struct{ Data json.RawMessage }
		err = json.NewDecoder(resp.Body).Decode(&out)
		return string(out.Data), err
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 30 {
				k := (w + i) % len(queries)
				if got, err := ask(queries[k]); err != nil || got != alone[k] {
					t.Errorf("%s answered, beside others, %.200s (%v); alone %.200s", queries[k], got, err, alone[k])
					return
				}
			}
		})
	}
	wg.Wait()
}
