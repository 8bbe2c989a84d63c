// Command leafpath shortens the path of leaf fields in the executable schema that gqlgen
// generates (graph/generated.go; `make generate` runs it after gqlgen).
//
// gqlgen resolves every field alike: it makes a field context, runs the resolver middleware,
// defers a recover, and boxes the value in an interface before marshalling it. For a scalar or
// enum read straight from a struct field that is most of the field's cost, and a page of
// transactions has thousands of such fields. leafpath rewrites each of those field functions
// to marshal the value first, the way gqlgen's own marshaller for the type would, and to return
// it when that gives a value. Only a value the marshaller would refuse (null in a non-null
// field) goes on to gqlgen's path, which reports the error at the field's path, so answers and
// errors are the same as gqlgen's. An object read from its parent's row the same way (a
// transaction's sender, its payload) is written at once under its own field context when the
// operation's graph.Fields say that its selection reads leaves alone: the field middleware would
// only pass it on, and a page of transactions has several such objects per row.
//
// It also lets an object be written without allocating for each of its fields (through the
// package's newObjectFields) and find its selection's fields without hashing a key
// (collectFields), a list's elements be resolved on reused goroutines
// (marshalSliceConcurrently), an object skip building its path for deferred fragments when it
// has none, a field with arguments parse them once per operation (through the package's argsOf)
// instead of once per object it is resolved on, and a query's answer be written into a buffer
// its caller lends (through the package's responseBuffer).
//
//	go run ./cmd/leafpath [-pkg ./graph] [-file generated.go]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	pkg := flag.String("pkg", "./graph", "the package of the generated executable schema")
	file := flag.String("file", "generated.go", "the generated file in it, rewritten in place")
	flag.Parse()
	if err := run(*pkg, *file); err != nil {
		fmt.Fprintln(os.Stderr, "leafpath:", err)
		os.Exit(1)
	}
}

func run(pattern, name string) error {
	path, out, n, err := rewriteFile(pattern, name, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "leafpath: %s: %d field functions shortened\n", path, n)
	return os.WriteFile(path, out, 0o644)
}

// rewriteFile type-checks the package and returns the path of its file name, the file
// rewritten, and how many field functions were shortened. overlay replaces files' contents, as
// in packages.Config.
func rewriteFile(pattern, name string, overlay map[string][]byte) (string, []byte, int, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Overlay: overlay}
	pkgs, err := packages.Load(cfg, pattern)
	if err != nil {
		return "", nil, 0, err
	}
	if len(pkgs) != 1 {
		return "", nil, 0, fmt.Errorf("%s: %d packages, want one", pattern, len(pkgs))
	}
	p := pkgs[0]
	if len(p.Errors) > 0 {
		return "", nil, 0, fmt.Errorf("%s: %v", pattern, p.Errors[0])
	}
	for i, path := range p.CompiledGoFiles {
		if filepath.Base(path) != name {
			continue
		}
		src, ok := overlay[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return "", nil, 0, err
			}
		}
		out, n, err := rewrite(src, p.Fset, p.Syntax[i], p.TypesInfo)
		if err != nil {
			return "", nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		return path, out, n, nil
	}
	return "", nil, 0, fmt.Errorf("%s has no file %s", pattern, name)
}

// rewrite returns src with every piece it can shorten replaced (leaf field functions, objects'
// field sets and deferred fragments, field arguments, Exec's answer buffers), and how many leaf field functions
// it shortened. A file already rewritten has none left: its pieces no longer match.
func rewrite(src []byte, fset *token.FileSet, f *ast.File, info *types.Info) ([]byte, int, error) {
	marshallers := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
			marshallers[fd.Name.Name] = fd
		}
	}
	var edits []span
	shortenedFields := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Body == nil {
			continue
		}
		edits = append(edits, ownFieldSet(fd)...)
		edits = append(edits, reusedGoroutines(fd)...)
		edits = append(edits, pointedElements(src, fset, fd, marshallers)...)
		if e, ok := deferredOnly(src, fset, fd); ok {
			edits = append(edits, e)
		} else if e, ok := keptArgs(src, fset, fd); ok {
			edits = append(edits, e)
		} else if fd.Name.Name == "Exec" {
			edits = append(edits, lentBuffers(src, fset, fd)...)
		} else if body, ok := shortened(src, fset, fd, marshallers, info); ok {
			edits = append(edits, span{fd.Body.Lbrace, fd.Body.Rbrace + 1, body})
			shortenedFields++
		} else if body, ok := rowObject(src, fset, fd, marshallers, info); ok {
			edits = append(edits, span{fd.Body.Lbrace, fd.Body.Rbrace + 1, body})
			shortenedFields++
		}
	}
	// Replaced from the end, so that the offsets of the pieces before stay right.
	slices.SortFunc(edits, func(a, b span) int { return int(b.from - a.from) })
	out := slices.Clone(src)
	for _, e := range edits {
		from, to := fset.Position(e.from).Offset, fset.Position(e.to).Offset
		out = slices.Concat(out[:from], []byte(e.text), out[to:])
	}
	formatted, err := format.Source(out)
	return formatted, shortenedFields, err
}

// ownFieldSet finds, in an object's marshaller, the field set its answer is written from:
//
//	out := graphql.NewFieldSet(fields)
//
// and returns it made by newObjectFields (a function the package defines), which writes the
// object without allocating for each field it writes; the resolvers of its fields, given the
// field set to count their failures in, are given the graphql.FieldSet it holds.
func ownFieldSet(fd *ast.FuncDecl) []span {
	var made *ast.CallExpr
	for _, st := range fd.Body.List {
		assign, ok := st.(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || !isIdent(assign.Lhs[0], "out") {
			continue
		}
		if call, ok := assign.Rhs[0].(*ast.CallExpr); ok && isSelector(call.Fun, "graphql", "NewFieldSet") && len(call.Args) == 1 && isIdent(call.Args[0], "fields") {
			made = call
			break
		}
	}
	if made == nil {
		return nil
	}
	edits := []span{{made.Pos(), made.End(), "newObjectFields(fields)"}}
	if e, ok := keptFields(fd); ok {
		edits = append(edits, e)
	}
	edits = append(edits, deferredOnDemand(fd)...)
	edits = append(edits, constantTypeNames(fd)...)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isIdent(call.Fun, "innerFunc") && len(call.Args) == 2 && isIdent(call.Args[1], "out") {
			edits = append(edits, span{call.Args[1].Pos(), call.Args[1].End(), "&out.FieldSet"})
		}
		return true
	})
	return edits
}

// deferredOnDemand finds, in an object's marshaller, what its deferred fields are resolved into:
//
//	deferredFieldSet := graphql.NewFieldSet(nil)
//	deferLabelToView := make(map[string]*graphql.FieldSetView)
//
// and returns them made by one call of deferredOf (a function the package defines), which makes
// them only for an object some of whose fields are deferred: only those write to them, and most
// objects have none.
func deferredOnDemand(fd *ast.FuncDecl) []span {
	stmts := fd.Body.List
	for i := 0; i+1 < len(stmts); i++ {
		set, ok := definedBy(stmts[i], "deferredFieldSet")
		if !ok || !isSelector(set.Fun, "graphql", "NewFieldSet") {
			continue
		}
		if views, ok := definedBy(stmts[i+1], "deferLabelToView"); ok && isIdent(views.Fun, "make") {
			return []span{{stmts[i].Pos(), stmts[i+1].End(), "deferredFieldSet, deferLabelToView := deferredOf(fields)"}}
		}
	}
	return nil
}

// definedBy is the call that the statement st defines name with (name := call(…)).
func definedBy(st ast.Stmt, name string) (*ast.CallExpr, bool) {
	assign, ok := st.(*ast.AssignStmt)
	if !ok || assign.Tok != token.DEFINE || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || !isIdent(assign.Lhs[0], name) {
		return nil, false
	}
	call, ok := assign.Rhs[0].(*ast.CallExpr)
	return call, ok
}

// constantTypeNames finds, in an object's marshaller, its __typename:
//
//	out.Values[i] = graphql.MarshalString("Transfer")
//
// and returns it written by the package's typeName, a constant held by an interface without
// allocating, where gqlgen's marshaller makes a closure for every object.
func constantTypeNames(fd *ast.FuncDecl) []span {
	var edits []span
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isSelector(call.Fun, "graphql", "MarshalString") || len(call.Args) != 1 {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			edits = append(edits, span{call.Fun.Pos(), call.Fun.End(), "typeName"})
		}
		return true
	})
	return edits
}

// reusedGoroutines finds, in a list's marshaller, its elements marshalled a goroutine each:
//
//	graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
//
// and returns them marshalled through marshalSliceConcurrently (a function the package
// defines), which runs them on goroutines it reuses.
func reusedGoroutines(fd *ast.FuncDecl) []span {
	var edits []span
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && isSelector(call.Fun, "graphql", "MarshalSliceConcurrently") {
			edits = append(edits, span{call.Fun.Pos(), call.Fun.End(), "marshalSliceConcurrently"})
		}
		return true
	})
	return edits
}

// keptFields finds, in an object's marshaller, the collection of its selection's fields:
//
//	fields := graphql.CollectFields(ec.OperationContext, sel, xImplementors)
//
// and returns it made through collectFields (a function the package defines), which keeps them
// per operation: gqlgen finds its own copy by a key it hashes again for every object.
func keptFields(fd *ast.FuncDecl) (span, bool) {
	for _, st := range fd.Body.List {
		assign, ok := st.(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || !isIdent(assign.Lhs[0], "fields") {
			continue
		}
		call, ok := assign.Rhs[0].(*ast.CallExpr)
		if !ok || !isSelector(call.Fun, "graphql", "CollectFields") || len(call.Args) != 3 || !isIdent(call.Args[1], "sel") {
			continue
		}
		return span{call.Fun.Pos(), call.Lparen + 1, "collectFields("}, true
	}
	return span{}, false
}

// deferredOnly finds, in an object's marshaller, the hand-over of its deferred fragments:
//
//	atomic.AddInt32(&ec.Deferred, int32(min(len(deferLabelToView), math.MaxInt32)))
//	ec.ProcessDeferredGroup(graphql.DeferredGroup{Defers: deferLabelToView, Path: graphql.GetPath(ctx), ...})
//
// and returns it guarded by `if len(deferLabelToView) > 0`: the group is ignored when it has no
// fragments, but its path, built for every object, is most of what an object allocates.
func deferredOnly(src []byte, fset *token.FileSet, fd *ast.FuncDecl) (span, bool) {
	stmts := fd.Body.List
	for i := 0; i+1 < len(stmts); i++ {
		add, ok := callOf(stmts[i], "atomic", "AddInt32")
		if !ok || len(add.Args) != 2 || !strings.HasPrefix(text(src, fset, add.Args[0]), "&ec.Deferred") {
			continue
		}
		process, ok := callOf(stmts[i+1], "ec", "ProcessDeferredGroup")
		if !ok || len(process.Args) != 1 {
			continue
		}
		views, ok := deferredViews(process.Args[0])
		if !ok {
			continue
		}
		from, to := stmts[i].Pos(), stmts[i+1].End()
		guarded := fmt.Sprintf("if len(%s) > 0 {\n%s\n}", views, src[fset.Position(from).Offset:fset.Position(to).Offset])
		return span{from, to, guarded}, true
	}
	return span{}, false
}

// keptArgs finds, in the function that makes a field's context, the parsing of its arguments:
//
//	if fc.Args, err = ec.field_T_f_args(ctx, field.ArgumentMap(ec.Variables)); err != nil {
//
// and returns the call made through argsOf (a function the package defines), which parses them
// once per operation: gqlgen makes the context again for every object the field is resolved on.
func keptArgs(src []byte, fset *token.FileSet, fd *ast.FuncDecl) (span, bool) {
	for _, st := range fd.Body.List {
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Init == nil {
			continue
		}
		assign, ok := ifs.Init.(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 2 || len(assign.Rhs) != 1 || !isSelector(assign.Lhs[0], "fc", "Args") {
			continue
		}
		call, ok := assign.Rhs[0].(*ast.CallExpr)
		if !ok || len(call.Args) != 2 || !isIdent(call.Args[0], "ctx") {
			continue
		}
		parse, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(parse.X, "ec") || !strings.HasPrefix(parse.Sel.Name, "field_") || !strings.HasSuffix(parse.Sel.Name, "_args") {
			continue
		}
		if text(src, fset, call.Args[1]) != "field.ArgumentMap(ec.Variables)" {
			continue
		}
		kept := fmt.Sprintf("argsOf(ec.OperationContext, field.Field, func() (map[string]any, error) { return %s })", text(src, fset, call))
		return span{call.Pos(), call.End(), kept}, true
	}
	return span{}, false
}

// span is a piece of the source and what replaces it.
type span struct {
	from, to token.Pos
	text     string
}

// lentBuffers finds, in the executable schema's Exec, each answer written into a new buffer:
//
//	var buf bytes.Buffer
//	data.MarshalGQL(&buf)
//
// and returns it written into the buffer the caller may lend (responseBuffer, a function the
// package defines) instead.
func lentBuffers(src []byte, fset *token.FileSet, fd *ast.FuncDecl) []span {
	var out []span
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		block, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i := 0; i+1 < len(block.List); i++ {
			decl, write := block.List[i], block.List[i+1]
			if text(src, fset, decl) == "var buf bytes.Buffer" && text(src, fset, write) == "data.MarshalGQL(&buf)" {
				out = append(out, span{decl.Pos(), write.End(), "buf := responseBuffer(ctx)\ndata.MarshalGQL(buf)"})
			}
		}
		return true
	})
	return out
}

// deferredViews is the name of the map given as Defers in a graphql.DeferredGroup literal.
func deferredViews(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok || !isSelector(lit.Type, "graphql", "DeferredGroup") {
		return "", false
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok || !isIdent(kv.Key, "Defers") {
			continue
		}
		if id, ok := kv.Value.(*ast.Ident); ok {
			return id.Name, true
		}
	}
	return "", false
}

// callOf is the call of s when s is the statement `recv.name(...)`.
func callOf(s ast.Stmt, recv, name string) (*ast.CallExpr, bool) {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return nil, false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || !isSelector(call.Fun, recv, name) {
		return nil, false
	}
	return call, true
}

// field is what a generated field function says of its field: the struct field expression
// the resolver returns, and the marshaller gqlgen then calls on it.
type field struct {
	read       string // source of the value's expression, e.g. obj.TxID or obj.TxStatus()
	isField    bool   // read is a struct field (obj.TxID), not a method's result
	mayFail    bool   // read returns (value, error)
	marshaller *ast.FuncDecl
	resolve    string // source of the function's original return statement
}

// shortened is the new body of fd when fd is a leaf field function whose value is a struct
// field, false otherwise.
func shortened(src []byte, fset *token.FileSet, fd *ast.FuncDecl, marshallers map[string]*ast.FuncDecl, info *types.Info) (string, bool) {
	fl, ok := leafField(src, fset, fd, marshallers, info)
	if !ok {
		return "", false
	}
	m, ok := marshalSteps(src, fset, fl.marshaller)
	if !ok {
		return "", false
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	at, pointed := pointedValue(fd, fl, m)
	if pointed {
		m.value, m.nullNeedsPath = at, false // never null
	}
	switch {
	case fl.mayFail:
		fmt.Fprintf(&b, "\tif v, err := %s; err == nil {\n", fl.read)
	case !pointed || m.nilGuard != "" || m.nilNeedsPath:
		fmt.Fprintf(&b, "\tv := %s\n", fl.read)
	}
	fallsThrough := fl.mayFail
	if m.nilGuard != "" {
		fmt.Fprintf(&b, "\t%s\n", m.nilGuard)
	}
	if m.nilNeedsPath {
		b.WriteString("\tif v != nil {\n")
		fallsThrough = true
	}
	if m.value == "v" {
		b.WriteString("\treturn v\n")
	} else if m.nullNeedsPath {
		fmt.Fprintf(&b, "\tif res := %s; res != graphql.Null {\n\t\treturn res\n\t}\n", m.value)
		fallsThrough = true
	} else {
		fmt.Fprintf(&b, "\treturn %s\n", m.value)
	}
	if m.nilNeedsPath {
		b.WriteString("\t}\n")
	}
	if fl.mayFail {
		b.WriteString("\t}\n")
	}
	if !fallsThrough {
		b.WriteString("}")
		return b.String(), true
	}
	b.WriteString("\t// an error, or null where the schema forbids it: gqlgen's path reports it at the field's path\n")
	fmt.Fprintf(&b, "\t%s\n}", fl.resolve)
	return b.String(), true
}

// rowObject is the new body of fd when fd is the field function of an object read from its
// parent's row (a struct field or a method, as leafField matches them) given by pointer: the
// object is written at once under its own field context when the operation's Fields say that its
// selection reads leaves alone (readsLeaves), as the field middleware would only pass it on. A
// null goes out as it is when the schema allows it; an error, a null it forbids, and a selection
// with a resolver take gqlgen's path.
func rowObject(src []byte, fset *token.FileSet, fd *ast.FuncDecl, marshallers map[string]*ast.FuncDecl, info *types.Info) (string, bool) {
	fl, ok := leafField(src, fset, fd, marshallers, info)
	if !ok || !isObjectMarshaller(fl.marshaller, marshallers) {
		return "", false
	}
	call := fd.Body.List[0].(*ast.ReturnStmt).Results[0].(*ast.CallExpr)
	fc, ok := fieldContextOf(call.Args[3])
	if !ok {
		return "", false
	}
	nonNull := isIdent(call.Args[8], "true")
	var b bytes.Buffer
	b.WriteString("{\n\tif readsLeaves(ctx, ec.OperationContext, field) {\n")
	indent := "\t\t"
	if fl.mayFail {
		fmt.Fprintf(&b, "\t\tif v, err := %s; err == nil {\n", fl.read)
		indent = "\t\t\t"
	} else {
		fmt.Fprintf(&b, "\t\tv := %s\n", fl.read)
	}
	cond := "err == nil"
	if nonNull {
		cond += " && v != nil"
	} else {
		fmt.Fprintf(&b, "%sif v == nil {\n%s\treturn graphql.Null\n%s}\n", indent, indent, indent)
	}
	fmt.Fprintf(&b, "%sif fc, err := ec.%s(ctx, field); %s {\n", indent, fc, cond)
	fmt.Fprintf(&b, "%s\treturn ec.%s(graphql.WithFieldContext(ctx, fc), field.Selections, v)\n%s}\n", indent, fl.marshaller.Name.Name, indent)
	if fl.mayFail {
		b.WriteString("\t\t}\n")
	}
	b.WriteString("\t}\n\t// an error, null where the schema forbids it, or a selection the field middleware follows: gqlgen's path\n")
	fmt.Fprintf(&b, "\t%s\n}", fl.resolve)
	return b.String(), true
}

// isObjectMarshaller says whether fd is the marshaller gqlgen generates for an object given by
// pointer: an optional nil check, then `return ec._T(ctx, sel, v)`.
func isObjectMarshaller(fd *ast.FuncDecl, marshallers map[string]*ast.FuncDecl) bool {
	stmts := fd.Body.List
	if len(stmts) == 2 {
		ifs, ok := stmts[0].(*ast.IfStmt)
		if !ok || !isComparison(ifs.Cond, "v", "nil") || ifs.Init != nil || ifs.Else != nil {
			return false
		}
		stmts = stmts[1:]
	}
	if len(stmts) != 1 {
		return false
	}
	ret, ok := stmts[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 3 || !isIdent(call.Args[0], "ctx") || !isIdent(call.Args[1], "sel") || !isIdent(call.Args[2], "v") {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, "ec") && strings.HasPrefix(sel.Sel.Name, "_") && marshallers[sel.Sel.Name] != nil
}

// fieldContextOf is the name of the field context function that ResolveField's fieldContext
// argument calls: `func(ctx, field) (…) { return ec.fieldContext_T_f(ctx, field) }`.
func fieldContextOf(e ast.Expr) (string, bool) {
	fl, ok := e.(*ast.FuncLit)
	if !ok || len(fl.Body.List) != 1 {
		return "", false
	}
	ret, ok := fl.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return "", false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "ec") || !strings.HasPrefix(sel.Sel.Name, "fieldContext_") {
		return "", false
	}
	return sel.Sel.Name, true
}

// valuesAt are the marshallers of values that the package has a type for that writes the same
// from a pointer to the value (leaves.go), and that type.
var valuesAt = map[string]string{
	"scalar.MarshalHex(v)": "hexAt", "scalar.MarshalUint128(v)": "uint128At", "graphql.MarshalString(v)": "stringAt",
	"graphql.MarshalInt64(v)": "int64At", "graphql.MarshalInt32(v)": "int32At", "graphql.MarshalBoolean(v)": "boolAt",
}

// pointedValue is the marshalled value of a field read from its parent's struct as a pointer to
// the struct's field, when the parent is given by pointer and the package has a type for its
// marshaller (valuesAt): it allocates nothing, where a marshaller's closure over a copy of the
// value does.
func pointedValue(fd *ast.FuncDecl, fl field, m steps) (string, bool) {
	at, ok := valuesAt[m.value]
	if !ok || !fl.isField || !objIsPointer(fd) {
		return "", false
	}
	return fmt.Sprintf("%s{&%s}", at, fl.read), true
}

// pointedElements finds, in the marshaller of a list of scalars, the marshalling of each element:
//
//	ret[i] = ec.marshalNHex2ᚕbyte(ctx, sel, v[i])
//
// and, when the package has a type that writes the element's value from a pointer (valuesAt),
// returns it written from a pointer into the list instead: a block's transaction ids are
// thousands of elements, each a closure otherwise. An element the marshaller checks for nil goes
// on to it when nil, which reports the error or writes the null.
func pointedElements(src []byte, fset *token.FileSet, fd *ast.FuncDecl, marshallers map[string]*ast.FuncDecl) []span {
	var edits []span
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		loop, ok := n.(*ast.RangeStmt)
		if !ok || !isIdent(loop.X, "v") || len(loop.Body.List) != 1 {
			return true
		}
		assign, ok := loop.Body.List[0].(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || text(src, fset, assign.Lhs[0]) != "ret[i]" {
			return true
		}
		call, ok := assign.Rhs[0].(*ast.CallExpr)
		if !ok || len(call.Args) != 3 || text(src, fset, call.Args[2]) != "v[i]" {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "ec") || marshallers[sel.Sel.Name] == nil {
			return true
		}
		m, ok := marshalSteps(src, fset, marshallers[sel.Sel.Name])
		at, known := valuesAt[m.value]
		if !ok || !known {
			return true
		}
		pointed := fmt.Sprintf("ret[i] = %s{&v[i]}", at)
		if m.nilGuard != "" || m.nilNeedsPath {
			pointed = fmt.Sprintf("if v[i] != nil {\n%s\n} else {\n%s\n}", pointed, text(src, fset, assign))
		}
		edits = append(edits, span{assign.Pos(), assign.End(), pointed})
		return false
	})
	return edits
}

// objIsPointer reports whether fd's obj parameter is a pointer.
func objIsPointer(fd *ast.FuncDecl) bool {
	for _, p := range fd.Type.Params.List {
		for _, n := range p.Names {
			if n.Name == "obj" {
				_, ok := p.Type.(*ast.StarExpr)
				return ok
			}
		}
	}
	return false
}

// leafField matches the function gqlgen generates for a field without arguments, directives or
// resolver whose value is a field of the parent's struct (not one promoted through an embedded
// pointer, which could be nil):
//
//	return graphql.ResolveField(ctx, ec.OperationContext, field, fieldContext,
//		func(ctx context.Context) (any, error) { return obj.X, nil },
//		nil,
//		func(ctx context.Context, selections ast.SelectionSet, v T) graphql.Marshaler {
//			return ec.marshalT(ctx, selections, v)
//		},
//		recover, nonNull)
func leafField(src []byte, fset *token.FileSet, fd *ast.FuncDecl, marshallers map[string]*ast.FuncDecl, info *types.Info) (field, bool) {
	if len(fd.Body.List) != 1 {
		return field{}, false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return field{}, false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isSelector(call.Fun, "graphql", "ResolveField") || len(call.Args) != 9 || !isIdent(call.Args[5], "nil") {
		return field{}, false
	}
	rd, ok := returnedValue(call.Args[4], info)
	if !ok {
		return field{}, false
	}
	marshal, ok := call.Args[6].(*ast.FuncLit)
	if !ok || len(marshal.Body.List) != 1 || len(marshal.Type.Params.List) != 3 {
		return field{}, false
	}
	mret, ok := marshal.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(mret.Results) != 1 {
		return field{}, false
	}
	mcall, ok := mret.Results[0].(*ast.CallExpr)
	if !ok {
		return field{}, false
	}
	sel, ok := mcall.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "ec") || marshallers[sel.Sel.Name] == nil {
		return field{}, false
	}
	// The value must reach the marshaller as it is: gqlgen asserts the boxed value to T.
	param := marshal.Type.Params.List[2]
	if len(param.Names) != 1 || !types.Identical(rd.typ, info.TypeOf(param.Names[0])) {
		return field{}, false
	}
	_, isCall := rd.expr.(*ast.CallExpr)
	return field{read: text(src, fset, rd.expr), isField: !isCall, mayFail: rd.mayFail, marshaller: marshallers[sel.Sel.Name], resolve: text(src, fset, ret)}, true
}

// value is how a field function's resolver reads its value.
type value struct {
	expr    ast.Expr
	typ     types.Type // the value's, without the error
	mayFail bool       // expr returns (value, error)
}

// returnedValue matches the resolver `func(ctx context.Context) (any, error) { ... }` of a field
// read from its parent alone: `return obj.X, nil`, `return obj.M(), nil`, or `return obj.M()`
// where M returns (value, error); X and M reached without a pointer that could be nil (see
// direct), and M taking no arguments.
func returnedValue(e ast.Expr, info *types.Info) (value, bool) {
	fl, ok := e.(*ast.FuncLit)
	if !ok || len(fl.Body.List) != 1 {
		return value{}, false
	}
	ret, ok := fl.Body.List[0].(*ast.ReturnStmt)
	if !ok {
		return value{}, false
	}
	switch {
	case len(ret.Results) == 2 && isIdent(ret.Results[1], "nil") && readsObj(ret.Results[0], info):
		return value{expr: ret.Results[0], typ: info.TypeOf(ret.Results[0])}, true
	case len(ret.Results) == 1 && readsObj(ret.Results[0], info):
		t, ok := info.TypeOf(ret.Results[0]).(*types.Tuple)
		if !ok || t.Len() != 2 || !types.Identical(t.At(1).Type(), types.Universe.Lookup("error").Type()) {
			return value{}, false
		}
		return value{expr: ret.Results[0], typ: t.At(0).Type(), mayFail: true}, true
	}
	return value{}, false
}

// readsObj says whether e is obj.X, a field, or obj.M(), a method call without arguments, both
// reached directly.
func readsObj(e ast.Expr, info *types.Info) bool {
	kind := types.FieldVal
	if call, ok := e.(*ast.CallExpr); ok {
		if len(call.Args) != 0 {
			return false
		}
		e, kind = call.Fun, types.MethodVal
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, "obj") {
		return false
	}
	s := info.Selections[sel]
	if s == nil || s.Kind() != kind {
		return false
	}
	path := s.Index()
	if kind == types.MethodVal {
		path = path[:len(path)-1] // the last is the method's
	}
	return direct(s.Recv(), path)
}

// direct says whether the fields path selects from recv are reached without going through a
// pointer beyond recv itself: declared in its struct, or promoted from structs embedded by value.
func direct(recv types.Type, path []int) bool {
	t := recv
	for _, i := range path {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			if t != recv {
				return false
			}
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return false
		}
		t = st.Field(i).Type()
	}
	return true
}

// steps are a marshaller's statements, as the shortened field function runs them.
type steps struct {
	nilGuard     string // `if v == nil { return graphql.Null }` of a nullable type, copied
	nilNeedsPath bool   // a nil value is an error reported at the field's path
	value        string // the marshalled value's expression, in terms of v
	// nullNeedsPath: a value marshalled to null is an error reported at the field's path.
	nullNeedsPath bool
}

// marshalSteps reads a scalar or enum marshaller gqlgen generates:
//
//	[if v == nil { [report an error;] return graphql.Null }]
//	[_ = sel] [_ = ctx]
//	res := <expression of v>            (or: return v)
//	[if res == graphql.Null { report an error }]
//	return res
//
// Any other shape (an object's, a list's) is not a leaf's and is left alone.
func marshalSteps(src []byte, fset *token.FileSet, fd *ast.FuncDecl) (steps, bool) {
	var m steps
	stmts := fd.Body.List
	if len(stmts) > 0 {
		if ifs, ok := stmts[0].(*ast.IfStmt); ok && isComparison(ifs.Cond, "v", "nil") && ifs.Else == nil && ifs.Init == nil {
			if uses(ifs.Body, "ctx") {
				m.nilNeedsPath = true
			} else {
				m.nilGuard = text(src, fset, ifs)
			}
			stmts = stmts[1:]
		}
	}
	for len(stmts) > 0 && isDiscard(stmts[0]) {
		stmts = stmts[1:]
	}
	switch {
	case len(stmts) == 1 && isReturnOf(stmts[0], "v"):
		m.value = "v"
		return m, true
	case len(stmts) < 2 || !isReturnOf(stmts[len(stmts)-1], "res"):
		return steps{}, false
	}
	assign, ok := stmts[0].(*ast.AssignStmt)
	if !ok || assign.Tok != token.DEFINE || len(assign.Lhs) != 1 || len(assign.Rhs) != 1 || !isIdent(assign.Lhs[0], "res") {
		return steps{}, false
	}
	if uses(assign.Rhs[0], "ctx") || uses(assign.Rhs[0], "sel") {
		return steps{}, false
	}
	m.value = text(src, fset, assign.Rhs[0])
	switch rest := stmts[1 : len(stmts)-1]; len(rest) {
	case 0:
	case 1:
		ifs, ok := rest[0].(*ast.IfStmt)
		if !ok || ifs.Else != nil || ifs.Init != nil || !isNullCheck(ifs.Cond) {
			return steps{}, false
		}
		m.nullNeedsPath = true
	default:
		return steps{}, false
	}
	return m, true
}

func isIdent(e ast.Node, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isSelector(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, pkg) && sel.Sel.Name == name
}

// isComparison says whether e is `a == b`.
func isComparison(e ast.Expr, a, b string) bool {
	be, ok := e.(*ast.BinaryExpr)
	return ok && be.Op == token.EQL && isIdent(be.X, a) && isIdent(be.Y, b)
}

// isNullCheck says whether e is `res == graphql.Null`.
func isNullCheck(e ast.Expr) bool {
	be, ok := e.(*ast.BinaryExpr)
	return ok && be.Op == token.EQL && isIdent(be.X, "res") && isSelector(be.Y, "graphql", "Null")
}

// isDiscard says whether s is `_ = x`.
func isDiscard(s ast.Stmt) bool {
	a, ok := s.(*ast.AssignStmt)
	return ok && a.Tok == token.ASSIGN && len(a.Lhs) == 1 && isIdent(a.Lhs[0], "_")
}

func isReturnOf(s ast.Stmt, name string) bool {
	r, ok := s.(*ast.ReturnStmt)
	return ok && len(r.Results) == 1 && isIdent(r.Results[0], name)
}

// uses says whether the identifier name appears in n.
func uses(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if isIdent(n, name) {
			found = true
		}
		return !found
	})
	return found
}

func text(src []byte, fset *token.FileSet, n ast.Node) string {
	return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
}
