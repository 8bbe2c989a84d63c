package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

func TestLimitsRejectBeforeAnySQL(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{MaxDepth: 10, MaxComplexity: 50_000, MaxPageSize: 100})
	deep := "{ block(height: 1) { " + strings.Repeat("parent { ", 12) + "height" + strings.Repeat(" }", 12) + " } }"
	wide := `{ blocksConnection(first: 100) { nodes { transactions(first: 100) { nodes { block {
		transactions(first: 100) { nodes { txId } } } } } } } }`
	tests := []struct {
		name, query string
		vars        map[string]any
		want        string
	}{
		{"deep", deep, nil, "query nests 14 levels deep, more than the limit of 10"},
		{"wide", wide, nil, "more than the limit of 50000"},
		{"page too large", `{ blocksConnection(first: 101) { nodes { height } } }`, nil, "Query.blocksConnection: first must be between 0 and 100"},
		{"page too large in a variable", `query($n: Int) { account(principal: "` + testSender + `") { transactions(last: $n) { nodes { txId } } } }`,
			map[string]any{"n": 5000}, "Account.transactions: last must be between 0 and 100"},
		{"negative limit", `{ blocks(limit: -1) { height } }`, nil, "Query.blocks: limit must be between 0 and 100"},
		{"a hash that is not hex", `{ blockByBurnBlockHash(hash: "0xzz") { height } }`, nil, `invalid hex "0xzz"`},
		{"a hash that is not hex, in a variable", `query($h: Hex!) { blockByBurnBlockHash(hash: $h) { height } }`,
			map[string]any{"h": "0x0g"}, `invalid hex "0x0g"`},
		{"a height beyond 32 bits", `{ block(height: 4294967296) { height } }`, nil, "4294967296 overflows signed 32-bit integer"},
		{"a height beyond 32 bits, in a variable", `query($h: Int) { block(height: $h) { height } }`,
			map[string]any{"h": 4294967296}, "4294967296 overflows signed 32-bit integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stmts := a.query(t, map[string]any{"query": tc.query, "variables": tc.vars})
			if len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, tc.want) || out.Errors[0].Extensions["code"] != "invalid" {
				t.Fatalf("errors = %+v; want one %q with code invalid", out.Errors, tc.want)
			}
			if stmts != 0 {
				t.Errorf("%d SQL statements ran before the rejection", stmts)
			}
		})
	}
}

func TestIntrospectionSwitch(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		a := newAPI(t, server.Config{Introspection: on})
		out, _ := a.query(t, map[string]any{"query": `{ __schema { queryType { name } } }`})
		if got := len(out.Errors) == 0; got != on {
			t.Errorf("introspection %v: errors %+v", on, out.Errors)
		}
		if !on && (len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != "forbidden") {
			t.Errorf("introspection off: errors %+v; want one with code forbidden", out.Errors)
		}
	}
}

func TestAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	q := `{ chainTip { blockHeight } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}

	out, _ := a.query(t, map[string]any{"extensions": ext})
	if len(out.Errors) != 1 || out.Errors[0].Message != "PersistedQueryNotFound" {
		t.Fatalf("unknown hash: errors %+v; want PersistedQueryNotFound", out.Errors)
	}
	if out, _ = a.query(t, map[string]any{"query": q, "extensions": ext}); len(out.Errors) != 0 {
		t.Fatalf("register: %+v", out.Errors)
	}
	out, _ = a.query(t, map[string]any{"extensions": ext})
	if len(out.Errors) != 0 || string(out.Data) != `{"chainTip":{"blockHeight":0}}` {
		t.Fatalf("by hash: data %s errors %+v", out.Data, out.Errors)
	}
}

// The GraphiQL, REST reference, explorer and start pages load only files this server serves:
// every script and stylesheet they name is a local path that answers with the bundled file.
func TestPagesServeTheirOwnAssets(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	ref := regexp.MustCompile(`(?:src|href)="([^"]*)"`)
	for _, page := range []string{"/graphiql", "/docs", "/", "/explorer/", "/explorer/block/1"} {
		resp, err := http.Get(a.url + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", page, resp.StatusCode)
		}
		assets := 0
		for _, m := range ref.FindAllSubmatch(body, -1) {
			link := string(m[1])
			if strings.HasPrefix(link, "data:") {
				continue
			}
			if !strings.HasPrefix(link, "/") || strings.HasPrefix(link, "//") {
				t.Errorf("%s links to another host: %s", page, link)
				continue
			}
			got, err := http.Get(a.url + link)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, got.Body)
			got.Body.Close()
			if got.StatusCode != http.StatusOK || n == 0 {
				t.Errorf("%s: %s answers %d with %d bytes", page, link, got.StatusCode, n)
			}
			if strings.HasPrefix(link, "/assets/") || strings.HasPrefix(link, "/explorer/assets/") {
				assets++
			}
		}
		if want := map[bool]int{true: 1, false: 2}[page == "/"]; assets < want {
			t.Errorf("%s loads %d bundled files, want %d (its stylesheet, and script)", page, assets, want)
		}
	}
}

// Introspection and aliases count towards the cost limit: thousands of aliases of __schema are
// refused before they run, while one full introspection (GraphiQL's) still passes.
func TestIntrospectionAliasesAreCosted(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{Introspection: true})
	var q strings.Builder
	q.WriteString("{")
	for i := range 2000 {
		q.WriteString(" s" + strconv.Itoa(i) + ": __schema { types { name fields { name } } }")
	}
	q.WriteString(" }")
	out, _ := a.query(t, map[string]any{"query": q.String()})
	if len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, "more than the limit of") || out.Errors[0].Extensions["code"] != "invalid" {
		t.Fatalf("2,000 aliases of __schema: errors %+v; want the cost limit's", out.Errors)
	}
	if len(out.Data) > 0 && string(out.Data) != "null" {
		t.Errorf("refused query returned data %s", out.Data)
	}
	out, _ = a.query(t, map[string]any{"query": introspectionQuery})
	if len(out.Errors) != 0 {
		t.Fatalf("full introspection refused: %+v", out.Errors)
	}
}

// introspectionQuery is the shape of GraphiQL's schema query.
const introspectionQuery = `query IntrospectionQuery { __schema {
  queryType { name } mutationType { name } subscriptionType { name }
  types { ...FullType }
  directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue } interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }`
