package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/server"
)

// describedQuery introspects every description a client sees.
const describedQuery = `{ __schema {
  types { name description
    fields(includeDeprecated: true) { name description args { name description } }
    inputFields { name description }
    enumValues(includeDeprecated: true) { name description } }
  directives { name description args { name description } } } }`

type described struct {
	Name        string
	Description *string
}

// gqlgenDirectives configure code generation; clients never use them.
var gqlgenDirectives = []string{"goModel", "goField"}

// Every type, field, argument, enum value, input field and directive a client can discover
// says what it is: GraphiQL's docs and generated clients show nothing else.
func TestSchemaIsDescribed(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{Introspection: true})
	data, _ := a.mustQuery(t, describedQuery, nil)
	var got struct {
		Schema struct {
			Types []struct {
				described
				Fields []struct {
					described
					Args []described
				}
				InputFields []described
				EnumValues  []described
			}
			Directives []struct {
				described
				Args []described
			}
		} `json:"__schema"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	var missing []string
	check := func(path string, d described) {
		if d.Description == nil || strings.TrimSpace(*d.Description) == "" {
			missing = append(missing, path)
		}
	}
	for _, ty := range got.Schema.Types {
		if strings.HasPrefix(ty.Name, "__") {
			continue
		}
		check(ty.Name, ty.described)
		for _, f := range ty.Fields {
			check(ty.Name+"."+f.Name, f.described)
			for _, arg := range f.Args {
				check(ty.Name+"."+f.Name+"("+arg.Name+")", arg)
			}
		}
		for _, f := range ty.InputFields {
			check(ty.Name+"."+f.Name, f)
		}
		for _, v := range ty.EnumValues {
			check(ty.Name+"."+v.Name, v)
		}
	}
	for _, d := range got.Schema.Directives {
		if slices.Contains(gqlgenDirectives, d.Name) {
			continue
		}
		check("@"+d.Name, d.described)
		for _, arg := range d.Args {
			check("@"+d.Name+"("+arg.Name+")", arg)
		}
	}
	if len(got.Schema.Types) == 0 {
		t.Fatal("introspection returned no types")
	}
	if len(missing) > 0 {
		t.Errorf("%d schema elements have no description (add one in schema.graphql):\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// subscriptionExample matches the subscriptions the example lists in its comments.
var subscriptionExample = regexp.MustCompile(`(?m)^#\s+(subscription \{.*\})\s*$`)

// pageExamples reads the example tabs the GraphiQL page carries.
func pageExamples(t *testing.T, base string) []server.Example {
	t.Helper()
	resp, err := http.Get(base + "/graphiql")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /graphiql: %d", resp.StatusCode)
	}
	m := regexp.MustCompile(`(?s)<script id="graphiql-examples" type="application/json">(.*?)</script>`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("GraphiQL page carries no examples:\n%.500s", body)
	}
	var examples []server.Example
	if err := json.Unmarshal(m[1], &examples); err != nil {
		t.Fatalf("examples: %v\n%s", err, m[1])
	}
	return examples
}

// Every example tab GraphiQL opens with, and the subscriptions the first one's comments suggest,
// are valid operations of the schema, and the queries run on an empty chain: a visitor's first
// request must not fail.
func TestGraphiQLExamplesValidate(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	examples := pageExamples(t, a.url)
	if len(examples) < 4 || !strings.Contains(examples[0].Query, "blocksConnection(first: 5)") {
		t.Fatalf("GraphiQL opens with %d examples, the first %q; want the latest-blocks query and more", len(examples), examples[0].Name)
	}
	schema := resolvers.NewExecutableSchema(&resolvers.Resolver{}).Schema()
	kinds := map[ast.Operation]int{}
	for _, e := range examples {
		doc, errs := gqlparser.LoadQuery(schema, e.Query)
		if errs != nil {
			t.Errorf("example %q does not validate: %v", e.Name, errs)
			continue
		}
		var vars map[string]any
		if e.Variables != "" {
			if err := json.Unmarshal([]byte(e.Variables), &vars); err != nil {
				t.Errorf("example %q: variables %q: %v", e.Name, e.Variables, err)
			}
		}
		for _, op := range doc.Operations {
			kinds[op.Operation]++
			if op.Operation == ast.Query {
				a.mustQuery(t, e.Query, vars)
			}
		}
	}
	if kinds[ast.Subscription] == 0 {
		t.Error("no example tab is a subscription")
	}
	var subs []string
	for _, m := range subscriptionExample.FindAllStringSubmatch(examples[0].Query, -1) {
		subs = append(subs, strings.ReplaceAll(m[1], "ST…", "ST000000000000000000002AMW42H"))
	}
	if len(subs) < 2 {
		t.Errorf("found no subscription examples in %q", examples[0].Query)
	}
	for _, op := range subs {
		if _, errs := gqlparser.LoadQuery(schema, op); errs != nil {
			t.Errorf("example %q does not validate: %v", op, errs)
		}
	}
}
