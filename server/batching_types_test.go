package server

import (
	"reflect"
	"slices"
	"testing"

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
