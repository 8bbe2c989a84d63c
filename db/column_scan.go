package db

import (
	"fmt"
	"math"
	"strconv"
)

// Typed scan destinations for the widest rows a request reads. database/sql converts a column
// into a plain *int32 or *string field through reflection and, for integers, a round trip
// through text; these take the driver's value (int64, bool, string or []byte, nil for NULL) as
// it is.

// intColumn scans a smallint, integer or bigint column into a field of its size.
type intColumn[T int16 | int32 | int64] struct{ p *T }

func (c intColumn[T]) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("scan %T into %T", src, *c.p)
	}
	*c.p = T(v)
	return nil
}

// kindsColumn scans a smallint column holding a set of event kinds.
type kindsColumn struct{ p *EventKinds }

func (c kindsColumn) Scan(src any) error {
	v, ok := src.(int64)
	if !ok || v < 0 || v > math.MaxUint8 {
		return fmt.Errorf("scan %v into a set of event kinds", src)
	}
	*c.p = EventKinds(v)
	return nil
}

// nullIntColumn scans a nullable smallint or integer column (nil for NULL).
type nullIntColumn[T int16 | int32] struct{ p **T }

func (c nullIntColumn[T]) Scan(src any) error {
	if src == nil {
		*c.p = nil
		return nil
	}
	v := new(T)
	if err := (intColumn[T]{v}).Scan(src); err != nil {
		return err
	}
	*c.p = v
	return nil
}

type (
	int16Column     = intColumn[int16]
	int32Column     = intColumn[int32]
	int64Column     = intColumn[int64]
	nullInt16Column = nullIntColumn[int16]
	nullInt32Column = nullIntColumn[int32]
)

// nullStringColumn scans a nullable text or numeric column (nil for NULL); the driver gives text
// as a string and numeric as its text's bytes.
type nullStringColumn struct{ p **string }

func (c nullStringColumn) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case nil:
		*c.p = nil
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	case int64:
		s = strconv.FormatInt(v, 10)
	default:
		return fmt.Errorf("scan %T into string", src)
	}
	*c.p = &s
	return nil
}

// kindColumn scans the event union's kind discriminator.
type kindColumn struct{ p *EventType }

func (c kindColumn) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*c.p = EventType(v)
	case []byte:
		*c.p = EventType(v)
	default:
		return fmt.Errorf("scan %T into an event kind", src)
	}
	return nil
}
