package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"

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

// The query GraphiQL opens with, and the subscriptions its comments suggest, are valid
// operations of the schema: a visitor's first request must not fail.
func TestGraphiQLExampleValidates(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(a.url + "/graphiql")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("GET /graphiql: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	example := loc.Query().Get("query")
	if example == "" {
		t.Fatal("GraphiQL does not open with an example query")
	}
	schema := resolvers.NewExecutableSchema(&resolvers.Resolver{}).Schema()
	operations := []string{example}
	for _, m := range subscriptionExample.FindAllStringSubmatch(example, -1) {
		operations = append(operations, strings.ReplaceAll(m[1], "ST…", "ST000000000000000000002AMW42H"))
	}
	if len(operations) < 2 {
		t.Errorf("found no subscription examples in %q", example)
	}
	for _, op := range operations {
		if _, errs := gqlparser.LoadQuery(schema, op); errs != nil {
			t.Errorf("example %q does not validate: %v", op, errs)
		}
	}
	// And it runs: on an empty chain every field resolves without error.
	a.mustQuery(t, example, nil)
}
