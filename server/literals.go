package server

import (
	"context"
	"crypto/sha256"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// literalVariables runs a query whose field arguments are written as literals (a block's height,
// an account's principal, a transaction's id) as the same query with those literals moved into
// variables. Queries that differ only in such values then share one document: parsed and
// validated once and kept in the executor's query cache, with one set of batching plans, where
// each text written with its own values would be parsed and validated again (a quarter of the
// server's CPU for a transaction by id). The answer is the one the query as written gets: an
// argument reaches its resolver as the same Go value either way, and a query that is not valid
// as written is left as written, so its errors are the ones it would get.
//
// A query is left as written when it is already in the query cache as written, is longer than
// maxMovedQuery, has no literal, holds several operations, writes a literal elsewhere than in a
// field's argument (a variable's default value, a directive's argument), or names a variable of
// its own _lit….
type literalVariables struct {
	schema *ast.Schema
	parsed graphql.Cache[*ast.QueryDocument] // the executor's query cache
	shapes *lru.LRU[string]                  // a query's shape -> its text with variables, "" to leave it
}

// maxLiterals bounds the literals a query may have moved into variables, and maxMovedQuery the
// length of its text, so that the texts kept by shape hold a few megabytes at most.
const (
	maxLiterals   = 256
	maxMovedQuery = 16 << 10
)

// variablePrefix starts the names of the variables literals are moved into.
const variablePrefix = "_lit"

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = (*literalVariables)(nil)

func newLiteralVariables(schema *ast.Schema, parsed graphql.Cache[*ast.QueryDocument]) *literalVariables {
	return &literalVariables{schema: schema, parsed: parsed, shapes: lru.New[string](1000)}
}

func (*literalVariables) ExtensionName() string                   { return "LiteralVariables" }
func (*literalVariables) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters moves p's literals into variables when its shape allows.
func (l *literalVariables) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" || len(p.Query) > maxMovedQuery {
		return nil
	}
	if _, known := l.parsed.Get(ctx, p.Query); known {
		return nil
	}
	s, ok := scanOf(ctx, p.Query)
	if !ok || len(s.lits) == 0 || len(s.lits) > maxLiterals || s.prefixed {
		return nil
	}
	text, known := l.shapes.Get(ctx, s.shape)
	if !known {
		var keep bool
		if text, keep = l.withVariables(ctx, p.Query, s.lits); keep {
			l.shapes.Add(ctx, s.shape, text)
		}
	}
	if text == "" {
		return nil
	}
	vars := make(map[string]any, len(p.Variables)+len(s.lits))
	for name, v := range p.Variables {
		vars[name] = v
	}
	for i, lit := range s.lits {
		v, ok := lit.value()
		if !ok { // out of range: the query as written fails its validation
			return nil
		}
		vars[literalName(i)] = v
	}
	graphql.GetOperationContext(ctx).Stats.SetExtension(writtenTextExtension, &writtenText{text: p.Query})
	p.Query, p.Variables = text, vars
	return nil
}

// writtenTextExtension names, in the operation context's extension data of a query whose
// literals moved, the text it was written as.
const writtenTextExtension = "WrittenText"

// writtenText is the text a query was written as, and where its fields are written in it.
type writtenText struct {
	text   string
	once   sync.Once
	fields map[gqlerror.Location]gqlerror.Location // a field's place in the text run -> in the text written
}

// presentError is present's error with its locations where the query was written: a resolver's
// error names its field's place in the document run, whose literals moved.
func presentError(present graphql.ErrorPresenterFunc) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := present(ctx, err)
		if len(e.Locations) == 0 || !graphql.HasOperationContext(ctx) {
			return e
		}
		oc := graphql.GetOperationContext(ctx)
		w, ok := oc.Stats.GetExtension(writtenTextExtension).(*writtenText)
		if !ok || oc.Doc == nil {
			return e
		}
		w.once.Do(func() { w.fields = fieldPlaces(oc.Doc, w.text) })
		for i, loc := range e.Locations {
			if at, ok := w.fields[loc]; ok {
				e.Locations[i] = at
			}
		}
		return e
	}
}

// fieldPlaces maps where each field of run is written to where it is written in text, the same
// document with its literals in place: their fields come in the same order.
func fieldPlaces(run *ast.QueryDocument, text string) map[gqlerror.Location]gqlerror.Location {
	written, err := parser.ParseQuery(&ast.Source{Input: text})
	if err != nil {
		return nil
	}
	places := func(doc *ast.QueryDocument) []gqlerror.Location {
		var out []gqlerror.Location
		eachSelection(doc, func(sel ast.Selection) {
			if f, ok := sel.(*ast.Field); ok && f.Position != nil {
				out = append(out, gqlerror.Location{Line: f.Position.Line, Column: f.Position.Column})
			}
		})
		return out
	}
	from, to := places(run), places(written)
	if len(from) != len(to) {
		return nil
	}
	fields := make(map[gqlerror.Location]gqlerror.Location, len(from))
	for i := range from {
		fields[from[i]] = to[i]
	}
	return fields
}

// literal is a String, Int or Float token of a query: its kind, its text (a string decoded)
// and where it is written, in runes as the lexer counts.
type literal struct {
	kind       lexer.Type
	text       string
	start, end int
}

// value is the literal's value as its argument would read it written in place (ast.Value.Value):
// a string, an int64 or a float64.
func (l literal) value() (any, bool) {
	switch l.kind {
	case lexer.Int:
		n, err := strconv.ParseInt(l.text, 10, 64)
		return n, err == nil
	case lexer.Float:
		f, err := strconv.ParseFloat(l.text, 64)
		return f, err == nil
	}
	return l.text, true
}

// scanned is what scanLiterals reads of a query: its shape (the sha256 of its tokens, each literal
// by its kind alone, comments left out: a short key whatever the text's length), its literals in
// order, and whether it names a variable of the prefix literals get.
type scanned struct {
	shape    string
	lits     []literal
	prefixed bool
}

// scanLiterals reads query's tokens once; not ok when the text does not lex (gqlgen then
// answers it with the error).
func scanLiterals(query string) (scanned, bool) {
	lex := lexer.New(&ast.Source{Input: query})
	var b strings.Builder
	b.Grow(len(query))
	var s scanned
	afterDollar := false
	for {
		tok, err := lex.ReadToken()
		if err != nil {
			return scanned{}, false
		}
		switch tok.Kind {
		case lexer.EOF:
			sum := sha256.Sum256([]byte(b.String()))
			s.shape = string(sum[:])
			return s, true
		case lexer.Comment:
			continue
		case lexer.String, lexer.BlockString, lexer.Int, lexer.Float:
			kind := tok.Kind
			if kind == lexer.BlockString {
				kind = lexer.String
			}
			b.WriteByte(byte(kind))
			s.lits = append(s.lits, literal{kind: tok.Kind, text: tok.Value, start: tok.Pos.Start, end: tok.Pos.End})
		case lexer.Name:
			s.prefixed = s.prefixed || afterDollar && strings.HasPrefix(tok.Value, variablePrefix)
			b.WriteByte(byte(tok.Kind))
			b.WriteString(tok.Value)
			b.WriteByte(' ')
		default:
			b.WriteByte(byte(tok.Kind))
		}
		afterDollar = tok.Kind == lexer.Dollar
	}
}

// scanKey names, in a request's context, the scan the answer cache made of its text.
type scanKey struct{}

// textScan is a text and its scan.
type textScan struct {
	text string
	scan *scanned
}

// withScan has ctx carry the scan of text, so that the operation run for the request does not
// lex its text again (scanOf).
func withScan(ctx context.Context, text string, s *scanned) context.Context {
	return context.WithValue(ctx, scanKey{}, textScan{text: text, scan: s})
}

// scanOf is query's scan: the one ctx carries for it, else a new one (scanLiterals).
func scanOf(ctx context.Context, query string) (scanned, bool) {
	if t, ok := ctx.Value(scanKey{}).(textScan); ok && t.text == query {
		return *t.scan, true
	}
	return scanLiterals(query)
}

// literalName is the variable the i-th literal of a query is moved into.
func literalName(i int) string { return variablePrefix + strconv.Itoa(i) }

// withVariables is query's text with its literals lits moved into variables, or "" when they
// stay; keep says whether every query of its shape gets the same answer, which is not so when
// query fails its validation (that can turn on a literal's value: an Int out of range).
func (l *literalVariables) withVariables(ctx context.Context, query string, lits []literal) (text string, keep bool) {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil || len(validator.ValidateWithRules(l.schema, doc, rules.NewDefaultRules())) > 0 {
		return "", false
	}
	if len(doc.Operations) != 1 {
		return "", true
	}
	types := argumentLiterals(doc)
	defs := make([]string, len(lits))
	for i, lit := range lits {
		typ, ok := types[lit.start]
		if !ok {
			return "", true
		}
		defs[i] = "$" + literalName(i) + ": " + typ
	}
	text = spliceVariables(query, doc.Operations[0], lits, strings.Join(defs, ", "))
	moved, err := parser.ParseQuery(&ast.Source{Input: text})
	if err != nil || len(validator.ValidateWithRules(l.schema, moved, rules.NewDefaultRules())) > 0 {
		return "", true
	}
	l.parsed.Add(ctx, text, moved)
	return text, true
}

// argumentLiterals are the String, Int and Float values written in the field arguments of doc's
// operations and fragments, in lists and input objects too, by where they start: the type each
// is read as (validation has set it).
func argumentLiterals(doc *ast.QueryDocument) map[int]string {
	types := map[int]string{}
	var value func(*ast.Value)
	value = func(v *ast.Value) {
		switch v.Kind {
		case ast.StringValue, ast.BlockValue, ast.IntValue, ast.FloatValue:
			if v.ExpectedType != nil && v.Position != nil {
				types[v.Position.Start] = v.ExpectedType.String()
			}
		case ast.ListValue, ast.ObjectValue:
			for _, c := range v.Children {
				value(c.Value)
			}
		}
	}
	eachSelection(doc, func(sel ast.Selection) {
		if f, ok := sel.(*ast.Field); ok {
			for _, a := range f.Arguments {
				value(a.Value)
			}
		}
	})
	return types
}

// spliceVariables writes query with each literal replaced by its variable and defs declared
// first among op's variables.
func spliceVariables(query string, op *ast.OperationDefinition, lits []literal, defs string) string {
	offset := byteOffsets(query)
	at, header := variablesAt(query, op)
	at = offset(at)
	header = strings.Replace(header, "%", defs, 1)
	var b strings.Builder
	b.Grow(len(query) + len(header) + 8*len(lits))
	last, declared := 0, false
	declare := func(before int) {
		if !declared && at <= before {
			b.WriteString(query[last:at])
			b.WriteString(header)
			last, declared = at, true
		}
	}
	for i, lit := range lits {
		start := offset(lit.start)
		declare(start)
		b.WriteString(query[last:start])
		b.WriteString("$" + literalName(i))
		last = offset(lit.end)
	}
	declare(len(query))
	b.WriteString(query[last:])
	return b.String()
}

// byteOffsets turns the lexer's positions, which count runes, into offsets in query's bytes.
func byteOffsets(query string) func(int) int {
	ascii := true
	for i := 0; i < len(query) && ascii; i++ {
		ascii = query[i] < utf8.RuneSelf
	}
	if ascii {
		return func(r int) int { return r }
	}
	offsets := make([]int, 0, len(query)+1)
	for i := range query {
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(query))
	return func(r int) int { return offsets[r] }
}

// variablesAt is where (in runes) the variable definitions of op go in query, and what to write
// there (% standing for the definitions): into its list when it has one, else a list after its
// name, or after its keyword, or (a query written as a bare selection set) with the keyword.
func variablesAt(query string, op *ast.OperationDefinition) (int, string) {
	if len(op.VariableDefinitions) > 0 {
		return op.VariableDefinitions[0].Position.Start, "%, "
	}
	lex := lexer.New(&ast.Source{Input: query})
	var head []lexer.Token // the operation's keyword and name, comments left out
	for len(head) < 2 {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		if tok.Pos.Start >= op.Position.Start && tok.Kind != lexer.Comment {
			head = append(head, tok)
		}
	}
	switch {
	case len(head) == 0 || head[0].Kind == lexer.BraceL:
		return op.Position.Start, "query(%) "
	case op.Name != "" && len(head) == 2:
		return head[1].Pos.End, "(%)"
	default:
		return head[0].Pos.End, "(%)"
	}
}
