// Package fields holds field functions in the shapes gqlgen generates, for leafpath's test.
package fields

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/stxgraph/stxgraph/scalar"
)

type executionContext struct {
	*graphql.OperationContext
	Deferred int32
}

func (ec *executionContext) ProcessDeferredGroup(dg graphql.DeferredGroup) {}

// Status is an enum whose values marshal themselves.
type Status string

func (s Status) MarshalGQL(w io.Writer) { io.WriteString(w, strconv.Quote(string(s))) }

type Inner struct{ Memo *string }

type Tx struct {
	*Inner
	ID       []byte
	Index    int32
	Sender   *string
	Status   Status
	Transfer *Transfer
}

func (t *Tx) Refund() (*Transfer, error) { return nil, nil }

func (t *Tx) Kind() (string, error) { return "transfer", nil }

func (t *Tx) Fee() string { return "180" }

func (t *Tx) Label(ctx context.Context) string { return "transfer" }

func (ec *executionContext) fieldContext(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
	return graphql.NewScalarFieldContext("Tx", field, false, false, errors.New("leaf"))
}

// _Tx_id: a non-null slice, null when nil.
func (ec *executionContext) _Tx_id(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.ID, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v []byte) graphql.Marshaler {
			return ec.marshalNHex(ctx, selections, v)
		},
		true,
		true,
	)
}

// _Tx_index: a non-null value type.
func (ec *executionContext) _Tx_index(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Index, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v int32) graphql.Marshaler {
			return ec.marshalNInt(ctx, selections, v)
		},
		true,
		true,
	)
}

// _Tx_sender: a nullable pointer.
func (ec *executionContext) _Tx_sender(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Sender, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *string) graphql.Marshaler {
			return ec.marshalOString(ctx, selections, v)
		},
		true,
		false,
	)
}

// _Tx_status: an enum that marshals itself.
func (ec *executionContext) _Tx_status(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Status, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v Status) graphql.Marshaler {
			return ec.marshalNStatus(ctx, selections, v)
		},
		true,
		true,
	)
}

// _Tx_memo is promoted through an embedded pointer, which may be nil: left to gqlgen.
func (ec *executionContext) _Tx_memo(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Memo, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *string) graphql.Marshaler {
			return ec.marshalOString(ctx, selections, v)
		},
		true,
		false,
	)
}

// _Tx_kind is a method that may fail: its error takes gqlgen's path.
func (ec *executionContext) _Tx_kind(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Kind()
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString(ctx, selections, v)
		},
		true,
		true,
	)
}

// _Tx_indexDirected has a directive (a middleware): left to gqlgen.
func (ec *executionContext) _Tx_indexDirected(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Index, nil
		},
		func(ctx context.Context, next graphql.Resolver) graphql.Resolver { return next },
		func(ctx context.Context, selections ast.SelectionSet, v int32) graphql.Marshaler {
			return ec.marshalNInt(ctx, selections, v)
		},
		true,
		true,
	)
}

func (ec *executionContext) marshalNHex(ctx context.Context, sel ast.SelectionSet, v []byte) graphql.Marshaler {
	if v == nil {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
		return graphql.Null
	}
	_ = sel
	res := graphql.MarshalString(string(v))
	if res == graphql.Null {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
	}
	return res
}

func (ec *executionContext) marshalNInt(ctx context.Context, sel ast.SelectionSet, v int32) graphql.Marshaler {
	_ = sel
	res := graphql.MarshalInt32(v)
	if res == graphql.Null {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
	}
	return res
}

func (ec *executionContext) marshalNString(ctx context.Context, sel ast.SelectionSet, v string) graphql.Marshaler {
	_ = sel
	res := graphql.MarshalString(v)
	return res
}

func (ec *executionContext) marshalOString(ctx context.Context, sel ast.SelectionSet, v *string) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	_ = sel
	_ = ctx
	res := graphql.MarshalString(*v)
	return res
}

func (ec *executionContext) marshalNStatus(ctx context.Context, sel ast.SelectionSet, v Status) graphql.Marshaler {
	return v
}

// Fees is embedded by value: its fields are read without a pointer that could be nil.
type Fees struct{ Rate string }

type Transfer struct {
	Fees
	*Inner
}

// _Transfer_rate is promoted from a struct embedded by value.
func (ec *executionContext) _Transfer_rate(ctx context.Context, field graphql.CollectedField, obj *Transfer) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Rate, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString(ctx, selections, v)
		},
		true,
		true,
	)
}

var transferImplementors = []string{"Transfer"}

// _Transfer is an object's marshaller: its fields are collected and written by the package's own
// functions, and its deferred fragments are handed over only when it has some.
func (ec *executionContext) _Transfer(ctx context.Context, sel ast.SelectionSet, obj *Transfer) graphql.Marshaler {
	fields := graphql.CollectFields(ec.OperationContext, sel, transferImplementors)
	out := graphql.NewFieldSet(fields)
	deferredFieldSet := graphql.NewFieldSet(nil)
	deferLabelToView := make(map[string]*graphql.FieldSetView)
	for i, field := range fields {
		switch field.Name {
		case "__typename":
			out.Values[i] = graphql.MarshalString("Transfer")
		case "rate":
			out.Values[i] = ec._Transfer_rate(ctx, field, obj)
		default:
			field := field
			innerFunc := func(ctx context.Context, fs *graphql.FieldSet) (res graphql.Marshaler) {
				res = ec._Transfer_rate(ctx, field, obj)
				if res == graphql.Null {
					atomic.AddUint32(&fs.Invalids, 1)
				}
				return res
			}
			out.Concurrently(i, func(ctx context.Context) graphql.Marshaler { return innerFunc(ctx, out) })
		}
	}
	out.Dispatch(ctx)

	atomic.AddInt32(&ec.Deferred, int32(min(len(deferLabelToView), math.MaxInt32)))

	ec.ProcessDeferredGroup(graphql.DeferredGroup{
		Defers:   deferLabelToView,
		Path:     graphql.GetPath(ctx),
		FieldSet: deferredFieldSet,
		Context:  ctx,
	})

	return out
}

// _Tx_fee is a method that cannot fail.
func (ec *executionContext) _Tx_fee(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Fee(), nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString(ctx, selections, v)
		},
		true,
		true,
	)
}

// _Tx_label is a method given the request's context: left to gqlgen.
func (ec *executionContext) _Tx_label(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		ec.fieldContext,
		func(ctx context.Context) (any, error) {
			return obj.Label(ctx), nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString(ctx, selections, v)
		},
		true,
		true,
	)
}

// argsOf is the package's arguments cache; leafpath only calls it.
func argsOf(oc *graphql.OperationContext, f *ast.Field, parse func() (map[string]any, error)) (map[string]any, error) {
	return parse()
}

func (ec *executionContext) field_Tx_events_args(ctx context.Context, rawArgs map[string]any) (map[string]any, error) {
	return rawArgs, nil
}

// fieldContext_Tx_events makes the context of a field with arguments, which are kept per field.
func (ec *executionContext) fieldContext_Tx_events(ctx context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	fc = &graphql.FieldContext{Object: "Tx", Field: field}
	ctx = graphql.WithFieldContext(ctx, fc)
	if fc.Args, err = ec.field_Tx_events_args(ctx, field.ArgumentMap(ec.Variables)); err != nil {
		ec.Error(ctx, err)
		return fc, err
	}
	return fc, nil
}

// marshalNHexList and marshalNStringList are lists of scalars: their elements are written from a
// pointer into the list, a nil one of a type checked for nil by its own marshaller.
func (ec *executionContext) marshalNHexList(ctx context.Context, sel ast.SelectionSet, v [][]byte) graphql.Marshaler {
	ret := make(graphql.Array, len(v))
	for i := range v {
		ret[i] = ec.marshalNRaw(ctx, sel, v[i])
	}
	return ret
}

// marshalNRaw is a non-null Hex's marshaller.
func (ec *executionContext) marshalNRaw(ctx context.Context, sel ast.SelectionSet, v []byte) graphql.Marshaler {
	if v == nil {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
		return graphql.Null
	}
	_ = sel
	res := scalar.MarshalHex(v)
	if res == graphql.Null {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
	}
	return res
}

func (ec *executionContext) marshalNStringList(ctx context.Context, sel ast.SelectionSet, v []string) graphql.Marshaler {
	ret := make(graphql.Array, len(v))
	for i := range v {
		ret[i] = ec.marshalNString(ctx, sel, v[i])
	}
	return ret
}

// marshalNTransfer is a list's marshaller: its elements are resolved on reused goroutines.
func (ec *executionContext) marshalNTransfer(ctx context.Context, sel ast.SelectionSet, v []*Transfer) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		return ec._Transfer(ctx, sel, v[i])
	})
	return ret
}

// marshalSliceConcurrently is the package's list marshaller; leafpath only calls it.
func marshalSliceConcurrently(ctx context.Context, length int, workerLimit int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
}

// collectFields is the package's memo of collected fields; leafpath only calls it.
func collectFields(oc *graphql.OperationContext, sel ast.SelectionSet, satisfies []string) []graphql.CollectedField {
	return graphql.CollectFields(oc, sel, satisfies)
}

// objectFields is the package's field set of an object; leafpath only makes it.
type objectFields struct{ graphql.FieldSet }

func newObjectFields(fields []graphql.CollectedField) *objectFields {
	return &objectFields{FieldSet: graphql.FieldSet{Values: make([]graphql.Marshaler, len(fields))}}
}

// deferredOf is the package's deferred fragments of an object; leafpath only calls it.
func deferredOf(fields []graphql.CollectedField) (*graphql.FieldSet, map[string]*graphql.FieldSetView) {
	return graphql.NewFieldSet(nil), make(map[string]*graphql.FieldSetView)
}

// The package's values written from a pointer to a struct field, and its type names; leafpath
// only makes them.
type (
	typeName  string
	hexAt     struct{ p *[]byte }
	uint128At struct{ p *string }
	stringAt  struct{ p *string }
	int64At   struct{ p *int64 }
	int32At   struct{ p *int32 }
	boolAt    struct{ p *bool }
)

func (v typeName) MarshalGQL(w io.Writer)  {}
func (v hexAt) MarshalGQL(w io.Writer)     {}
func (v uint128At) MarshalGQL(w io.Writer) {}
func (v stringAt) MarshalGQL(w io.Writer)  {}
func (v int64At) MarshalGQL(w io.Writer)   {}
func (v int32At) MarshalGQL(w io.Writer)   {}
func (v boolAt) MarshalGQL(w io.Writer)    {}

// responseBuffer is the package's lent answer buffer; leafpath only calls it.
func responseBuffer(ctx context.Context) *bytes.Buffer { return new(bytes.Buffer) }

type executableSchema struct{}

// Exec writes a query's answer into the buffer its caller may lend.
func (e *executableSchema) Exec(ctx context.Context) graphql.ResponseHandler {
	return func(ctx context.Context) *graphql.Response {
		var data graphql.Marshaler = graphql.Null
		var buf bytes.Buffer
		data.MarshalGQL(&buf)
		return &graphql.Response{Data: buf.Bytes()}
	}
}

// _Tx_transfer is a non-null object read from its parent's struct.
func (ec *executionContext) _Tx_transfer(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_Tx_transfer(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Transfer, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *Transfer) graphql.Marshaler {
			return ec.marshalNTransfer2(ctx, selections, v)
		},
		true,
		true,
	)
}

func (ec *executionContext) fieldContext_Tx_transfer(_ context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
	return &graphql.FieldContext{Object: "Tx", Field: field}, nil
}

// _Tx_refund is a nullable object from a method that may fail.
func (ec *executionContext) _Tx_refund(ctx context.Context, field graphql.CollectedField, obj *Tx) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_Tx_refund(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Refund()
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *Transfer) graphql.Marshaler {
			return ec.marshalOTransfer2(ctx, selections, v)
		},
		true,
		false,
	)
}

func (ec *executionContext) fieldContext_Tx_refund(_ context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
	return &graphql.FieldContext{Object: "Tx", Field: field}, nil
}

func (ec *executionContext) marshalNTransfer2(ctx context.Context, sel ast.SelectionSet, v *Transfer) graphql.Marshaler {
	if v == nil {
		if !graphql.HasFieldError(ctx, graphql.GetFieldContext(ctx)) {
			graphql.AddErrorf(ctx, "the requested element is null which the schema does not allow")
		}
		return graphql.Null
	}
	return ec._Transfer(ctx, sel, v)
}

func (ec *executionContext) marshalOTransfer2(ctx context.Context, sel ast.SelectionSet, v *Transfer) graphql.Marshaler {
	if v == nil {
		return graphql.Null
	}
	return ec._Transfer(ctx, sel, v)
}

func readsLeaves(ctx context.Context, oc *graphql.OperationContext, f graphql.CollectedField) bool {
	return true
}
