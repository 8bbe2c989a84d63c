package server_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// repoRoot is where gqlgen.yml and the schema files are, from this package's directory.
const repoRoot = ".."

// schemaFiles lists the schema files gqlgen.yml names (globs expanded), in its order.
func schemaFiles(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "gqlgen.yml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var files []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "schema:"):
			in = true
		case in && strings.HasPrefix(strings.TrimSpace(line), "- "):
			pattern := strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- ")), `"'`)
			matches, err := filepath.Glob(filepath.Join(repoRoot, pattern))
			if err != nil || len(matches) == 0 {
				t.Fatalf("gqlgen.yml schema entry %q names no file (%v)", pattern, err)
			}
			files = append(files, matches...)
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			in = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || filepath.Base(files[0]) != "schema.graphql" {
		t.Fatalf("gqlgen.yml lists %q; the root schema.graphql comes first", files)
	}
	return files
}

// history matches text about how the code was made rather than about the chain: GraphiQL and
// generated clients show descriptions to users.
var history = regexp.MustCompile(`(?i)\b(issues?|sessions?|helpers?|minimal core|core added|added (with|in|by)|extends it|` +
	`(was|were) (added|moved|renamed|split)|originally|previously|todo|fixme|for now|refactor\w*)\b`)

// rootTypes may be extended by the domain files.
var rootTypes = []string{"Query", "Mutation", "Subscription"}

// Every schema file gqlgen builds from defines each type once (the root operation types may be
// extended by other files), and neither descriptions nor comments speak of the code's history.
func TestSchemaFilesOneDefinitionPerType(t *testing.T) {
	t.Parallel()
	defined := map[string]string{}    // type -> file that defines it
	extended := map[string][]string{} // type -> files that extend it
	for _, path := range schemaFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(strings.TrimPrefix(path, repoRoot+string(filepath.Separator)))
		doc, perr := parser.ParseSchema(&ast.Source{Name: name, Input: string(src)})
		if perr != nil {
			t.Fatalf("%s: %v", name, perr)
		}
		for _, d := range doc.Definitions {
			if prev, ok := defined[d.Name]; ok {
				t.Errorf("type %s is defined in %s and again in %s", d.Name, prev, name)
			}
			defined[d.Name] = name
			checkDefinition(t, name, d)
		}
		for _, d := range doc.Extensions {
			extended[d.Name] = append(extended[d.Name], name)
			checkDefinition(t, name, d)
		}
		for _, d := range doc.Directives {
			checkDescription(t, name, "@"+d.Name, d.Description)
			for _, a := range d.Arguments {
				checkDescription(t, name, "@"+d.Name+"("+a.Name+")", a.Description)
			}
		}
		for i, line := range strings.Split(string(src), "\n") {
			if c := strings.TrimSpace(line); strings.HasPrefix(c, "#") && history.MatchString(c) {
				t.Errorf("%s:%d: comment speaks of the code's history, not the chain: %q", name, i+1, c)
			}
		}
	}
	for typ, files := range extended {
		switch {
		case !slices.Contains(rootTypes, typ):
			t.Errorf("type %s is extended in %s: merge the fields into its one definition (in %s)", typ, strings.Join(files, ", "), defined[typ])
		case slices.Contains(files, defined[typ]):
			t.Errorf("root type %s is extended in %s, the file that defines it: merge the fields into the definition", typ, defined[typ])
		}
	}
	for _, typ := range []string{"Transaction", "Account", "Block", "MempoolTransaction", "ChainTip", "Query"} {
		if defined[typ] == "" {
			t.Errorf("type %s is not defined in any schema file", typ)
		}
	}
}

func checkDefinition(t *testing.T, file string, d *ast.Definition) {
	t.Helper()
	checkDescription(t, file, d.Name, d.Description)
	for _, f := range d.Fields {
		checkDescription(t, file, d.Name+"."+f.Name, f.Description)
		for _, a := range f.Arguments {
			checkDescription(t, file, d.Name+"."+f.Name+"("+a.Name+")", a.Description)
		}
	}
	for _, v := range d.EnumValues {
		checkDescription(t, file, d.Name+"."+v.Name, v.Description)
	}
}

func checkDescription(t *testing.T, file, path, description string) {
	t.Helper()
	if history.MatchString(description) {
		t.Errorf("%s: the description of %s speaks of the code's history, not the chain: %q", file, path, description)
	}
}

// The check itself catches what it is for.
func TestSchemaHistoryPattern(t *testing.T) {
	for _, bad := range []string{"Minimal core added for an issue", "a later issue extends it",
		"Fields added in the account session", "TODO: pagination"} {
		if !history.MatchString(bad) {
			t.Errorf("history pattern misses %q", bad)
		}
	}
	for _, good := range []string{"Whether the microblock is part of the accepted stream (false when orphaned by a later microblock fork).",
		"Transactions by id, each looked up among canonical mined transactions", "Total STX sent (transfers and burns)."} {
		if history.MatchString(good) {
			t.Errorf("history pattern flags chain text %q", good)
		}
	}
}
