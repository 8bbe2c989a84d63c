package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/server"
)

// A query written with literals answers what the same query written with variables answers, its
// errors included; queries differing only in their literals run one text, whose variables carry
// the values as the literals would have given them.
func TestLiteralsAnswerAsVariables(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 1, sender: testSender}.seed(t, a.store)
	data, _ := a.mustQuery(t, `{ block(height: 2) { transactions(first: 2) { nodes { txId } } } }`, nil)
	var ids struct {
		Block struct {
			Transactions struct{ Nodes []struct{ TxID string } }
		}
	}
	if err := json.Unmarshal(data, &ids); err != nil || len(ids.Block.Transactions.Nodes) != 2 {
		t.Fatalf("transactions of block 2: %s", data)
	}
	tx0, tx1 := ids.Block.Transactions.Nodes[0].TxID, ids.Block.Transactions.Nodes[1].TxID

	for _, c := range []struct {
		name, literals, variables string
		vars                      map[string]any // the variables' values; those the literals' query has too
	}{
		{"a bare selection set", `{ block(height: 2) { height hash } }`,
			`query($h: Int) { block(height: $h) { height hash } }`, map[string]any{"h": 2}},
		{"nested pages, a comment with a non-ASCII letter before the literals",
			"# höhe\nquery Page { block(height: 3) { transactions(first: 1) { nodes { txId events(limit: 1) { __typename } } } } }",
			`query Page($h: Int, $n: Int, $e: Int) { block(height: $h) { transactions(first: $n) { nodes { txId events(limit: $e) { __typename } } } } }`,
			map[string]any{"h": 3, "n": 1, "e": 1}},
		{"variables of its own beside the literals",
			`query Front($n: Int) { blocksConnection(first: $n) { nodes { height transactions(first: 1) { nodes { txId } } } } }`,
			`query Front($n: Int, $t: Int) { blocksConnection(first: $n) { nodes { height transactions(first: $t) { nodes { txId } } } } }`,
			map[string]any{"n": 2, "t": 1}},
		{"a fragment written before the operation",
			`fragment Txs on Block { transactions(first: 1) { nodes { txId } } } query { block(height: 1) { ...Txs } }`,
			`fragment Txs on Block { transactions(first: $n) { nodes { txId } } } query($h: Int, $n: Int) { block(height: $h) { ...Txs } }`,
			map[string]any{"h": 1, "n": 1}},
		{"a list of strings and a string", `{ transactionsByIds(ids: ["` + tx0 + `", "` + tx1 + `"]) { txId found } account(principal: "` + testSender + `") { principal } }`,
			`query($a: Hex!, $b: Hex!, $p: String!) { transactionsByIds(ids: [$a, $b]) { txId found } account(principal: $p) { principal } }`,
			map[string]any{"a": tx0, "b": tx1, "p": testSender}},
		{"a value its argument cannot read", `{ blockByBurnBlockHash(hash: "0xzz") { height } }`,
			`query($h: Hex!) { blockByBurnBlockHash(hash: $h) { height } }`, map[string]any{"h": "0xzz"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			written, _ := a.query(t, map[string]any{"query": c.literals, "variables": c.vars})
			want, _ := a.query(t, map[string]any{"query": c.variables, "variables": c.vars})
			if !reflect.DeepEqual(written, want) || len(want.Data) < len(`{"x":{}}`) {
				t.Errorf("with literals %s %+v\nwith variables %s %+v", written.Data, written.Errors, want.Data, want.Errors)
			}
		})
	}
}

func TestLiteralsMoveIntoVariables(t *testing.T) {
	t.Parallel()
	schema := resolvers.NewExecutableSchema(&resolvers.Resolver{}).Schema()
	page := func(height, first string) string {
		return `{ block(height: ` + height + `) { transactions(first: ` + first + `) { nodes { txId } } } }`
	}
	text, vars := server.MoveLiterals(schema, page("7", "20"), nil)
	other, otherVars := server.MoveLiterals(schema, page("12", "5"), nil)
	want := `query($_lit0: Int, $_lit1: Int) { block(height: $_lit0) { transactions(first: $_lit1) { nodes { txId } } } }`
	if text != want || other != want {
		t.Fatalf("pages of two blocks run\n%s\n%s\nwant\n%s", text, other, want)
	}
	if want := map[string]any{"_lit0": int64(7), "_lit1": int64(20)}; !reflect.DeepEqual(vars, want) {
		t.Errorf("variables %#v, want %#v", vars, want)
	}
	if want := map[string]any{"_lit0": int64(12), "_lit1": int64(5)}; !reflect.DeepEqual(otherVars, want) {
		t.Errorf("the second page's variables %#v, want %#v", otherVars, want)
	}

	text, vars = server.MoveLiterals(schema, `{ transactionsByIds(ids: ["0xab", """0xcd"""]) { txId } account(principal: "S\u0054") { principal } }`, nil)
	want = `query($_lit0: Hex!, $_lit1: Hex!, $_lit2: String!) { transactionsByIds(ids: [$_lit0, $_lit1]) { txId } account(principal: $_lit2) { principal } }`
	if text != want || !reflect.DeepEqual(vars, map[string]any{"_lit0": "0xab", "_lit1": "0xcd", "_lit2": "ST"}) {
		t.Errorf("ran %q with %v, want %q", text, vars, want)
	}

	named := "query Q($n: Int) # the page\n{ blocksConnection(first: $n) { nodes { transactions(first: 2) { nodes { txId } } } } }"
	text, vars = server.MoveLiterals(schema, named, map[string]any{"n": 3})
	want = "query Q($_lit0: Int, $n: Int) # the page\n{ blocksConnection(first: $n) { nodes { transactions(first: $_lit0) { nodes { txId } } } } }"
	if text != want || !reflect.DeepEqual(vars, map[string]any{"n": 3, "_lit0": int64(2)}) {
		t.Errorf("ran %q with %v, want %q", text, vars, want)
	}
}

// Queries are run as written when moving their literals could change their answer or they have
// none to move.
func TestLiteralsStayWhereTheyMust(t *testing.T) {
	t.Parallel()
	schema := resolvers.NewExecutableSchema(&resolvers.Resolver{}).Schema()
	for name, q := range map[string]string{
		"not valid as written":           `{ block(height: "seven") { height } }`,
		"an Int beyond 64 bits":          `{ block(height: 99999999999999999999) { height } }`,
		"a variable's default value":     `query($h: Int = 4) { block(height: $h) { height } }`,
		"two operations":                 `query A { block(height: 1) { height } } query B { block(height: 2) { height } }`,
		"a variable named like the ones": `query($_lit0: Int) { block(height: $_lit0) { transactions(first: 2) { nodes { txId } } } }`,
		"no literal":                     `{ chainTip { blockHeight } }`,
		"a text beyond 16 KiB":           "{ block(height: 1) { height } }\n#" + strings.Repeat("-", 16<<10),
		"a directive's argument":         `{ block(height: 1) { height ... @defer(label: "later") { hash } } }`,
	} {
		if text, vars := server.MoveLiterals(schema, q, nil); text != q || vars != nil {
			t.Errorf("%s: ran %q with %v", name, text, vars)
		}
	}
}

// Whatever the text, a query either runs as written or with its literals moved into variables
// such that every argument reads the value it reads as written: the moved text is valid, has the
// operation's shape, and each field's arguments, in the operation and in its fragments, read
// with the variables, equal the original's.
func FuzzLiteralsMoved(f *testing.F) {
	schema := resolvers.NewExecutableSchema(&resolvers.Resolver{}).Schema()
	for _, q := range []string{
		`{ block(height: 7) { height transactions(first: 20) { nodes { txId events(limit: 5, offset: 1) { __typename } } } } }`,
		"# ä comment\nquery Named($n: Int) { blocksConnection(first: $n) { nodes { hash } } account(principal: \"S\\u0054é\") { principal } }",
		`fragment F on Block { transactions(first: 1) { nodes { txId } } } { block(height: -1) { ...F } b2: block(hash: """0xab""") { ...F } }`,
		`{ transactionsByIds(ids: ["0x01", "0x02"]) { txId found } blocks(limit: 3, offset: 2.5) { height } }`,
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		moved, vars := server.MoveLiterals(schema, q, nil)
		if moved == q {
			return
		}
		original, err := parser.ParseQuery(&ast.Source{Input: q})
		if err != nil {
			t.Fatalf("%q was moved though it does not parse: %v", q, err)
		}
		doc, err := parser.ParseQuery(&ast.Source{Input: moved})
		if err != nil {
			t.Fatalf("%q moved into %q, which does not parse: %v", q, moved, err)
		}
		if errs := validator.Validate(schema, doc); len(errs) > 0 {
			t.Fatalf("%q moved into %q, which is not valid: %v", q, moved, errs)
		}
		same := len(original.Fragments) == len(doc.Fragments) &&
			sameArguments(t, original.Operations[0].SelectionSet, doc.Operations[0].SelectionSet, vars)
		for i := 0; same && i < len(doc.Fragments); i++ {
			same = sameArguments(t, original.Fragments[i].SelectionSet, doc.Fragments[i].SelectionSet, vars)
		}
		if !same {
			t.Fatalf("%q moved into %q with %v reads other arguments", q, moved, vars)
		}
	})
}

// sameArguments reports whether the fields of a and b, walked together through fields and inline
// fragments (a fragment spread by its name; the fragments are compared apart), read equal
// arguments: a's as written, b's with vars.
func sameArguments(t *testing.T, a, b ast.SelectionSet, vars map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch x := a[i].(type) {
		case *ast.Field:
			y, ok := b[i].(*ast.Field)
			if !ok || x.Name != y.Name || len(x.Arguments) != len(y.Arguments) {
				return false
			}
			for j, arg := range x.Arguments {
				want, err1 := arg.Value.Value(nil)
				got, err2 := y.Arguments[j].Value.Value(vars)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
					t.Logf("%s.%s: %#v as written, %#v moved", x.Name, arg.Name, want, got)
					return false
				}
			}
			if !sameArguments(t, x.SelectionSet, y.SelectionSet, vars) {
				return false
			}
		case *ast.InlineFragment:
			y, ok := b[i].(*ast.InlineFragment)
			if !ok || !sameArguments(t, x.SelectionSet, y.SelectionSet, vars) {
				return false
			}
		case *ast.FragmentSpread:
			y, ok := b[i].(*ast.FragmentSpread)
			if !ok || x.Name != y.Name {
				return false
			}
		}
	}
	return true
}

// A resolver's error names its field where the query was written, not where the field sits in
// the text its literals moved into.
func TestLiteralQueriesErrorsNameTheirFieldsAsWritten(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	for _, c := range []struct {
		query string
		want  map[string][2]int // an error's path -> its line and column
	}{
		{`{ block(height: 1, hash: "0x00") { height } }`, map[string][2]int{"block": {1, 3}}},
		{"fragment F on Query {\n  b2: block(height: 2, hash: \"0x0011\") { height }\n}\nquery Q { ...F  block(height: 1, hash: \"0x00\") { height } }",
			map[string][2]int{"b2": {2, 3}, "block": {4, 17}}},
	} {
		b, _ := json.Marshal(map[string]any{"query": c.query})
		resp, err := http.Post(a.url+"/graphql", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Errors []struct {
				Path      []string
				Locations []struct{ Line, Column int }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || len(out.Errors) != len(c.want) {
			t.Fatalf("%q: errors %+v (%v), want %d", c.query, out.Errors, err, len(c.want))
		}
		for _, e := range out.Errors {
			want := c.want[strings.Join(e.Path, ".")]
			if len(e.Locations) != 1 || e.Locations[0].Line != want[0] || e.Locations[0].Column != want[1] {
				t.Errorf("%q: the error at %v is located at %+v, want line %d column %d", c.query, e.Path, e.Locations, want[0], want[1])
			}
		}
	}
}
