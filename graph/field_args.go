package graph

import (
	"context"
	"sync"

	"github.com/vektah/gqlparser/v2/ast"
)

// A field's arguments are the same on every object it is resolved on: they depend on the
// operation's text and variables alone. gqlgen parses them again for each object (a page of
// transactions asking each for its events parses `events(limit: 5)` once per transaction), so
// the field functions cmd/leafpath rewrites keep them per field for the response being made.

type fieldArgsKey struct{}

// fieldArgs are the arguments parsed for the response being made, by field of the operation.
type fieldArgs struct {
	mu   sync.Mutex
	args map[*ast.Field]map[string]any
}

// WithFieldArgs gives a response its own arguments cache. Resolvers read their arguments and
// never change them, so the objects of one field share one map.
func WithFieldArgs(ctx context.Context) context.Context {
	return context.WithValue(ctx, fieldArgsKey{}, &fieldArgs{args: map[*ast.Field]map[string]any{}})
}

// argsOf returns field f's arguments, parsed by parse the first time the response asks. An
// argument that fails to parse is not kept: each object reports its error, as gqlgen does.
func argsOf(ctx context.Context, f *ast.Field, parse func() (map[string]any, error)) (map[string]any, error) {
	c, _ := ctx.Value(fieldArgsKey{}).(*fieldArgs)
	if c == nil {
		return parse()
	}
	c.mu.Lock()
	args, ok := c.args[f]
	c.mu.Unlock()
	if ok {
		return args, nil
	}
	args, err := parse()
	if err == nil {
		c.mu.Lock()
		c.args[f] = args
		c.mu.Unlock()
	}
	return args, err
}
