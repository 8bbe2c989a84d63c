package db

import (
	"fmt"
	"strconv"
)

// Typed scan destinations for the widest rows a request reads. database/sql converts a column
// into a plain *int32 or *string field through reflection and, for integers, a round trip
// through text; these take the driver's value (int64, bool, string or []byte, nil for NULL) as
// it is.

// int32Column scans an integer column.
type int32Column struct{ p *int32 }

func (c int32Column) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("scan %T into int32", src)
	}
	*c.p = int32(v)
	return nil
}

// int16Column scans a smallint column.
type int16Column struct{ p *int16 }

func (c int16Column) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("scan %T into int16", src)
	}
	*c.p = int16(v)
	return nil
}

// int64Column scans a bigint column.
type int64Column struct{ p *int64 }

func (c int64Column) Scan(src any) error {
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("scan %T into int64", src)
	}
	*c.p = v
	return nil
}

// nullInt32Column scans a nullable integer column (nil for NULL).
type nullInt32Column struct{ p **int32 }

func (c nullInt32Column) Scan(src any) error {
	if src == nil {
		*c.p = nil
		return nil
	}
	v := new(int32)
	*c.p = v
	return int32Column{v}.Scan(src)
}

// nullInt16Column scans a nullable smallint column (nil for NULL).
type nullInt16Column struct{ p **int16 }

func (c nullInt16Column) Scan(src any) error {
	if src == nil {
		*c.p = nil
		return nil
	}
	v, ok := src.(int64)
	if !ok {
		return fmt.Errorf("scan %T into int16", src)
	}
	n := int16(v)
	*c.p = &n
	return nil
}

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
