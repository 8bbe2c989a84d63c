package server

import (
	"context"
	"crypto/sha256"
	"reflect"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
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
	b, es := validatedBatching(t)
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
		r, list := fieldAt(t, b, es, tc.query, tc.path)
		if got := (fieldsOf{b, r}).ElementsMayWait(context.Background(), list, nil); got != tc.want {
			t.Errorf("%s: the elements of %s may wait: %v, want %v", tc.query, list.Name, got, tc.want)
		}
	}
}

// A page of transactions whose only resolvers answer from what the page read (their events
// read with it, contract calls without their ABI) runs its elements one after another: they wait
// for nothing then. Otherwise, and when another field may wait, they run at once. So does a
// page of transactions with their transfers, for the transactions it selects.
func TestTransactionsAnsweredInPlaceRunOneAfterAnother(t *testing.T) {
	t.Parallel()
	b, es := validatedBatching(t)
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	rows := func(typ int16) []*db.Tx {
		txs := make([]*db.Tx, 3)
		for i := range txs {
			id, block := sha256.Sum256([]byte{byte(typ), byte(i)}), sha256.Sum256([]byte("block"))
			txs[i] = &db.Tx{TxID: id[:], IndexBlockHash: block[:], EventCount: 3, TxFields: db.TxFields{TypeID: typ}}
		}
		return txs
	}
	calls, transfers := rows(db.TypeContractCall), rows(db.TypeTokenTransfer)
	positions := loaders.TxEventsRead{Read: true, Window: db.EventWindow{Limit: 5}, Columns: db.EventPositionColumns}
	const account = `{ account(principal: "ST000000000000000000002AMW42H") { `
	nodes, results := []string{"account", "transactions", "nodes"}, []string{"account", "transactionsWithTransfers", "results"}
	page := account + `transactions(first: 20) { nodes { `
	tests := []struct {
		name  string
		query string
		path  []string
		txs   []*db.Tx
		read  loaders.TxEventsRead // what the page read with its transactions
		want  bool
	}{
		{"events read with the page", page + `txId events(limit: 5) { __typename eventIndex } } } } }`, nodes, calls, positions, false},
		{"events not read", page + `txId events(limit: 5) { __typename } } } } }`, nodes, calls, loaders.TxEventsRead{}, true},
		{"another window read", page + `txId events(limit: 2) { __typename } } } } }`, nodes, calls, positions, true},
		{"more columns asked than read", page + `events(limit: 5) { ...on StxAssetEvent { asset { amount } } } } } } }`, nodes, calls, positions, true},
		{"a field the events were not read for", page + `a: events(limit: 5) { __typename } b: events(limit: 1) { __typename } } } } }`, nodes, calls, positions, true},
		{"a window the resolver refuses", page + `events(limit: -1) { __typename } } } } }`, nodes, calls, loaders.TxEventsRead{}, false},
		{"another resolver", page + `block { height } events(limit: 5) { __typename } } } } }`, nodes, calls, positions, true},
		{"events that load their transaction", page + `events(limit: 5) { transaction { txId } } } } } }`, nodes, calls, positions, true},
		{"contract calls with their ABI", page + `contractCall { functionName } } } } }`, nodes, calls, positions, true},
		{"contract calls without their ABI", page + `contractCall(abi: false) { functionName } } } } }`, nodes, calls, positions, false},
		{"no contract call", page + `contractCall { functionName } events(limit: 5) { eventIndex } } } } }`, nodes, transfers, positions, false},
		{"with their transfers", account + `transactionsWithTransfers { results { stxSent tx { txId events(limit: 5) { eventIndex } } } } } }`, results, calls, positions, false},
		{"with their transfers, events not read", account + `transactionsWithTransfers { results { tx { events(limit: 5) { eventIndex } } } } } }`, results, calls, loaders.TxEventsRead{}, true},
		{"with their transfers and contract calls", account + `transactionsWithTransfers { results { tx { contractCall { functionName } } } } } }`, results, calls, positions, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, list := fieldAt(t, b, es, tc.query, tc.path)
			ctx := graphql.WithOperationContext(loaders.With(t.Context(), loaders.New(store)), r.oc)
			loaders.ReadEvents(ctx, tc.txs, tc.read)
			var value any = tc.txs
			if list.Name == "results" {
				withTransfers := make([]*graph.TransactionWithTransfers, len(tc.txs))
				for i, tx := range tc.txs {
					withTransfers[i] = &graph.TransactionWithTransfers{Tx: tx}
				}
				value = withTransfers
			}
			if got := (fieldsOf{b, r}).ElementsMayWait(ctx, list, value); got != tc.want {
				t.Errorf("the transactions may wait: %v, want %v", got, tc.want)
			}
		})
	}
}

// An object read from its parent's row is written at once only when its selection reads leaves
// alone, none of them with a resolver, fragments included: one with an object, with a field a
// resolver answers, or with a deferred fragment goes through the middleware that follows it.
func TestObjectsThatReadLeaves(t *testing.T) {
	t.Parallel()
	b, es := validatedBatching(t)
	const nodes = `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 20) { nodes { `
	path := []string{"account", "transactions", "nodes", "x"}
	tests := []struct {
		query string
		want  bool
	}{
		{nodes + `x: sender { principal } } } } }`, true},
		{nodes + `x: sender { principal latestTxId } } } } }`, false},
		{nodes + `x: sender { stxBalance { balance } } } } } }`, false},
		{nodes + `x: tokenTransfer { amount memo } } } } }`, true},
		{nodes + `x: tokenTransfer { ...on TokenTransferPayload { amount } } } } } }`, true},
		{nodes + `x: tokenTransfer { ...T } } } } } fragment T on TokenTransferPayload { amount memo }`, true},
		{nodes + `x: sender { ...A } } } } } fragment A on Account { principal latestTxId }`, false},
		{nodes + `x: tokenTransfer { ...on TokenTransferPayload @defer { amount } } } } } }`, false},
	}
	for _, tc := range tests {
		r, f := fieldAt(t, b, es, tc.query, path)
		if got := (fieldsOf{b, r}).ReadsLeaves(f); got != tc.want {
			t.Errorf("%s: reads leaves alone: %v, want %v", tc.query, got, tc.want)
		}
	}
}

// validatedBatching is a Batching that has indexed the schema, and the schema.
func validatedBatching(t *testing.T) (*Batching, graphql.ExecutableSchema) {
	t.Helper()
	b := newBatching(nil, loaders.DefaultWait)
	es := graph.NewExecutableSchema(graph.Config{})
	if err := b.Validate(es); err != nil {
		t.Fatal(err)
	}
	return b, es
}

// fieldAt is the field of query at path (of aliases from the root), as collected for the
// operation, and the operation's schedule.
func fieldAt(t *testing.T, b *Batching, es graphql.ExecutableSchema, query string, path []string) (*schedule, graphql.CollectedField) {
	t.Helper()
	doc, errs := gqlparser.LoadQuery(es.Schema(), query)
	if errs != nil {
		t.Fatalf("%s: %v", query, errs)
	}
	oc := &graphql.OperationContext{Doc: doc, Operation: doc.Operations[0], Variables: map[string]any{}}
	r := &schedule{oc: oc, objects: map[objectKey]*object{}, plans: b.plansFor(oc), local: newPlans()}
	sel, typ := doc.Operations[0].SelectionSet, "Query"
	var f graphql.CollectedField
	for _, alias := range path {
		fields := graphql.CollectFields(oc, sel, b.satisfies[typ])
		i := slices.IndexFunc(fields, func(f graphql.CollectedField) bool { return f.Alias == alias })
		if i < 0 {
			t.Fatalf("%s: no field %s on %s", query, alias, typ)
		}
		f = fields[i]
		sel, typ = f.Selections, f.Definition.Type.Name()
	}
	return r, f
}

// A page of blocks whose only resolvers list their contents or give their burn block runs its
// elements one after another when the page read those with it: they wait for nothing then.
// Otherwise, and when another field may wait, they run at once.
func TestBlocksWithTheirExtrasRunOneAfterAnother(t *testing.T) {
	t.Parallel()
	b, es := validatedBatching(t)
	blocks := make([]*db.Block, 3)
	for i := range blocks {
		hash, burn := sha256.Sum256([]byte{byte(i)}), sha256.Sum256([]byte{byte(i), 'b'})
		blocks[i] = &db.Block{IndexBlockHash: hash[:], BurnBlockHash: burn[:]}
	}
	const contents = `txIds microblockTxCounts { hash txCount } streamedMicroblockHashes`
	all := db.BlockExtras{Contents: true, BurnBlock: true}
	tests := []struct {
		name  string
		query string
		read  int            // how many of the blocks the page read with extras
		x     db.BlockExtras // the extras it read
		want  bool
	}{
		{"contents read with the page", `{ blocks(limit: 3) { height ` + contents + ` } }`, 3, db.BlockExtras{Contents: true}, false},
		{"contents not read", `{ blocks(limit: 3) { height txIds } }`, 0, db.BlockExtras{}, true},
		{"some contents not read", `{ blocks(limit: 3) { ` + contents + ` } }`, 2, db.BlockExtras{Contents: true}, true},
		{"no contents asked", `{ blocks(limit: 3) { height hash } }`, 0, db.BlockExtras{}, false},
		{"another resolver", `{ blocks(limit: 3) { txIds parent { height } } }`, 3, all, true},
		{"burn blocks read with the page", `{ blocks(limit: 3) { height burnBlock { height canonical } } }`, 3, db.BlockExtras{BurnBlock: true}, false},
		{"burn blocks not read", `{ blocks(limit: 3) { height burnBlock { height } } }`, 3, db.BlockExtras{Contents: true}, true},
		{"some burn blocks not read", `{ blocks(limit: 3) { burnBlock { height } } }`, 2, all, true},
		{"contents and burn blocks read", `{ blocks(limit: 3) { txIds burnBlock { hash } } }`, 3, all, false},
		{"contents read, burn blocks not", `{ blocks(limit: 3) { txIds burnBlock { hash } } }`, 3, db.BlockExtras{Contents: true}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, list := fieldAt(t, b, es, tc.query, []string{"blocks"})
			ctx := graphql.WithOperationContext(loaders.With(t.Context(), loaders.New(nil)), r.oc)
			read := make([]*db.BlockRead, tc.read)
			for i := range read {
				read[i] = &db.BlockRead{Block: blocks[i], Contents: &db.BlockContents{IndexBlockHash: blocks[i].IndexBlockHash}, Extras: tc.x}
			}
			loaders.PrimeBlockReads(ctx, read)
			if got := (fieldsOf{b, r}).ElementsMayWait(ctx, list, blocks); got != tc.want {
				t.Errorf("the blocks may wait: %v, want %v", got, tc.want)
			}
		})
	}
}
