package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/fields.golden")

// The test package holds a field function of each shape gqlgen generates: seven leaves read from
// their parent alone (struct fields, one promoted from a struct embedded by value, a method and a
// method that may fail) and two objects (a non-null struct field, a nullable method that may
// fail), which are shortened, and three that must stay on gqlgen's path (a field
// promoted through an embedded pointer, a method given the context, a field with a directive); and
// an object's marshaller, whose fields are collected and written by the package's functions and
// whose deferred fragments are handed over only when it has some, a list's marshaller, whose
// elements run on reused goroutines, a field context whose arguments are kept per field, and
// Exec, whose answer goes into a lent buffer.
func TestLeafFieldsAreShortened(t *testing.T) {
	path, out, n, err := rewriteFile("./testdata/fields", "fields.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Errorf("shortened %d field functions, want 9 (id, index, sender, status, rate, kind, fee, transfer, refund)", n)
	}

	// An object read from its parent's row is written at once when its selection reads leaves
	// alone; a null goes out as it is where the schema allows it, else on gqlgen's path with errors.
	for fn, want := range map[string]string{
		"_Tx_transfer": "if readsLeaves(ctx, ec.OperationContext, field) {\n\t\tv := obj.Transfer\n" +
			"\t\tif fc, err := ec.fieldContext_Tx_transfer(ctx, field); err == nil && v != nil {\n" +
			"\t\t\treturn ec.marshalNTransfer2(graphql.WithFieldContext(ctx, fc), field.Selections, v)\n\t\t}\n\t}\n",
		"_Tx_refund": "if readsLeaves(ctx, ec.OperationContext, field) {\n\t\tif v, err := obj.Refund(); err == nil {\n" +
			"\t\t\tif v == nil {\n\t\t\t\treturn graphql.Null\n\t\t\t}\n" +
			"\t\t\tif fc, err := ec.fieldContext_Tx_refund(ctx, field); err == nil {\n",
	} {
		if body := strings.TrimSpace(funcBody(string(out), fn)); !strings.HasPrefix(body, want) || !strings.Contains(body, "return graphql.ResolveField(") {
			t.Errorf("%s:\n%s\nwant it to begin\n%s\nand keep gqlgen's path", fn, body, want)
		}
	}
	for _, kept := range []string{"_Tx_memo", "_Tx_label", "_Tx_indexDirected"} {
		if body := funcBody(string(out), kept); !strings.HasPrefix(strings.TrimSpace(body), "return graphql.ResolveField(") {
			t.Errorf("%s was rewritten:\n%s", kept, body)
		}
	}

	// A struct field of a parent given by pointer is written from a pointer to it, with nothing to
	// check: the value is never null.
	for fn, want := range map[string]string{"_Tx_index": "return int32At{&obj.Index}", "_Transfer_rate": "return stringAt{&obj.Rate}"} {
		if body := strings.TrimSpace(funcBody(string(out), fn)); !strings.HasPrefix(body, want+"\n}") {
			t.Errorf("%s:\n%s\nwant %s", fn, body, want)
		}
	}

	// A list of scalars writes its elements from pointers into it; a nil one goes on to the
	// element's marshaller, which reports it.
	for fn, want := range map[string]string{
		"marshalNStringList": "ret[i] = stringAt{&v[i]}\n",
		"marshalNHexList":    "if v[i] != nil {\n\t\t\tret[i] = hexAt{&v[i]}\n\t\t} else {\n\t\t\tret[i] = ec.marshalNRaw(ctx, sel, v[i])\n\t\t}",
	} {
		if body := funcBody(string(out), fn); !strings.Contains(body, want) {
			t.Errorf("%s:\n%s\nwant %s", fn, body, want)
		}
	}

	body := funcBody(string(out), "_Transfer")
	if !strings.Contains(body, "if len(deferLabelToView) > 0 {\n\t\tatomic.AddInt32") {
		t.Errorf("_Transfer hands over its deferred fragments unguarded:\n%s", body)
	}
	if !strings.Contains(body, "out := newObjectFields(fields)\n\tdeferredFieldSet, deferLabelToView := deferredOf(fields)\n") {
		t.Errorf("_Transfer writes its answer from gqlgen's field set, or makes a set for deferred fragments it has none of:\n%s", body)
	}
	if !strings.Contains(body, `out.Values[i] = typeName("Transfer")`) {
		t.Errorf("_Transfer makes a closure for its __typename:\n%s", body)
	}
	if !strings.Contains(body, "fields := collectFields(ec.OperationContext, sel, transferImplementors)") {
		t.Errorf("_Transfer collects its fields through gqlgen's hashed key:\n%s", body)
	}
	if !strings.Contains(body, "return innerFunc(ctx, &out.FieldSet)") {
		t.Errorf("_Transfer's resolvers count failures in a field set of their own:\n%s", body)
	}

	if body := funcBody(string(out), "marshalNTransfer"); !strings.Contains(body, "ret := marshalSliceConcurrently(ctx, len(v), 0, false,") {
		t.Errorf("marshalNTransfer starts a new goroutine for each element:\n%s", body)
	}

	if body := funcBody(string(out), "fieldContext_Tx_events"); !strings.Contains(body, "fc.Args, err = argsOf(ec.OperationContext, field.Field, func() (map[string]any, error) {") {
		t.Errorf("fieldContext_Tx_events parses its arguments for every object:\n%s", body)
	}

	if body := funcBody(string(out), "Exec"); !strings.Contains(body, "buf := responseBuffer(ctx)\n\t\tdata.MarshalGQL(buf)") {
		t.Errorf("Exec writes its answer into a buffer of its own:\n%s", body)
	}

	golden := filepath.Join("testdata", "fields.golden")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("rewritten file differs from %s (go test -run TestLeafFieldsAreShortened -update):\n%s", golden, out)
	}

	// The rewritten file type-checks, and a second run finds nothing left to shorten.
	_, again, n, err := rewriteFile("./testdata/fields", "fields.go", map[string][]byte{path: out})
	if err != nil {
		t.Fatalf("the rewritten file: %v", err)
	}
	if n != 0 || !bytes.Equal(again, out) {
		t.Errorf("a second run shortened %d more", n)
	}
}

// funcBody is the text of the function named name in src, up to the next function.
func funcBody(src, name string) string {
	i := strings.Index(src, ") "+name+"(")
	if i < 0 {
		return ""
	}
	body := src[i:]
	body = body[strings.Index(body, "{\n")+2:]
	if j := strings.Index(body, "\nfunc "); j >= 0 {
		body = body[:j]
	}
	return body
}
