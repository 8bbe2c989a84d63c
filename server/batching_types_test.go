package server

import (
	"reflect"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/graph"
	"github.com/stxgraph/stxgraph/loaders"
)

// The token count must find the concrete GraphQL type of every value an interface or union field
// returns, as gqlgen bound it; a miss costs statements (see abstractFields).
func TestConcreteTypesOfAbstractResults(t *testing.T) {
	t.Parallel()
	b := newBatching(nil, loaders.DefaultWait)
	if err := b.Validate(graph.NewExecutableSchema(graph.Config{})); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		abstract string
		value    any
		want     string
	}{
		{"Event", &db.ContractLog{}, "SmartContractLogEvent"},
		{"Event", &db.StxLockEvent{}, "StxLockEvent"},
		{"Event", &db.StxEvent{}, "StxAssetEvent"},
		{"Event", &db.FtEvent{}, "FungibleTokenAssetEvent"},
		{"Event", &db.NftEvent{}, "NonFungibleTokenAssetEvent"},
		{"AnyTransaction", &db.Tx{}, "Transaction"},
		{"AnyTransaction", &db.MempoolTx{}, "MempoolTransaction"},
	}
	covered := map[string][]string{}
	for _, tc := range tests {
		def := b.schema.Types[tc.abstract]
		got := b.concrete(def, reflect.TypeOf(tc.value))
		if got == nil || got.Name != tc.want {
			t.Errorf("%s holding %T: concrete type %v, want %s", tc.abstract, tc.value, got, tc.want)
		}
		covered[tc.abstract] = append(covered[tc.abstract], tc.want)
	}
	// Every interface and union of the schema, with every possible type, is in the table.
	for name, def := range b.schema.Types {
		if def.BuiltIn || (def.Kind != "INTERFACE" && def.Kind != "UNION") {
			continue
		}
		for _, p := range b.schema.GetPossibleTypes(def) {
			if !slices.Contains(covered[name], p.Name) {
				t.Errorf("%s may hold a %s, which this table does not check", name, p.Name)
			}
		}
	}
}

// A list's elements run one after another when no field below them has a resolver (they only
// read their rows), and at once when one has: it may wait for its siblings' batch.
func TestListsWhoseElementsMayWait(t *testing.T) {
	t.Parallel()
	b := newBatching(nil, loaders.DefaultWait)
	es := graph.NewExecutableSchema(graph.Config{})
	if err := b.Validate(es); err != nil {
		t.Fatal(err)
	}
	const account = `account(principal: "ST000000000000000000002AMW42H") `
	tests := []struct {
		query string
		path  []string // of the list field, by alias
		want  bool
	}{
		{`{ blocks { height hash } }`, []string{"blocks"}, false},
		{`{ blocks { height txIds } }`, []string{"blocks"}, true},
		{`{ blocks { burnBlock { height } } }`, []string{"blocks"}, true},
		{`{ ` + account + `{ transactions(first: 20) { nodes { txId blockHeight sender { principal } } } } }`,
			[]string{"account", "transactions", "nodes"}, false},
		{`{ ` + account + `{ transactions(first: 20) { nodes { txId events(limit: 5) { __typename } } } } }`,
			[]string{"account", "transactions", "nodes"}, true},
		{`{ ` + account + `{ transactions(first: 20) { nodes { ...on Transaction { block { height } } } } } }`,
			[]string{"account", "transactions", "nodes"}, true},
	}
	for _, tc := range tests {
		doc, errs := gqlparser.LoadQuery(es.Schema(), tc.query)
		if errs != nil {
			t.Fatalf("%s: %v", tc.query, errs)
		}
		oc := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{}}
		r := &schedule{oc: oc, objects: map[objectKey]*object{}, plans: b.plansFor(oc), local: newPlans()}
		sel, typ := doc.Operations[0].SelectionSet, "Query"
		var list graphql.CollectedField
		for _, alias := range tc.path {
			i := slices.IndexFunc(graphql.CollectFields(oc, sel, b.satisfies[typ]), func(f graphql.CollectedField) bool { return f.Alias == alias })
			if i < 0 {
				t.Fatalf("%s: no field %s on %s", tc.query, alias, typ)
			}
			list = graphql.CollectFields(oc, sel, b.satisfies[typ])[i]
			sel, typ = list.Selections, list.Definition.Type.Name()
		}
		if got := (listsOf{b, r}).ElementsMayWait(list); got != tc.want {
			t.Errorf("%s: the elements of %s may wait: %v, want %v", tc.query, list.Name, got, tc.want)
		}
	}
}
