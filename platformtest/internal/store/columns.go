// This file holds the value rules of the data backend (a JavaScript
// service over Postgres): the storage typing of each column type
// (docs/fake.md) and the typing of values on the way out (docs/wire.md
// §7.6), with JavaScript's conversions (columns_javascript.go).

package store

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/template"
)

// Postgres error codes the fake reports in runtime_error objects.
const (
	CodeDatatypeMismatch   = "42804" // json into a non-json column
	CodeUndefinedColumn    = "42703" // projected column that does not exist
	CodeInvalidTextRep     = "22P02" // json value that is not a number, cast numeric
	CodeInvalidDatetime    = "22007" // unparseable timestamp text
	CodeDatetimeOutOfRange = "22008" // non-finite timestamp number
)

// MaxSafeInt is the largest integer a JavaScript number holds exactly.
const MaxSafeInt = 1 << 53

// StoreValue applies a column type's storage typing to a defined value.
// It returns the stored value (nil for NULL) or the Postgres error code the
// insert fails with.
func StoreValue(typ template.DataType, v any) (any, string) {
	if v == nil {
		return nil, ""
	}
	switch v.(type) {
	case map[string]any, []any:
		if typ != template.TypeJSON {
			return nil, CodeDatatypeMismatch
		}
	}
	return TypeOf(typ).Store(v)
}

// storeNumeric reads a number as JavaScript does; NaN and infinities are NULL.
func storeNumeric(v any) (any, string) {
	var f float64
	switch x := v.(type) {
	case string:
		f = JSParseFloat(x)
	case []byte:
		f = JSParseFloat(string(x))
	default:
		if !IsNumber(v) {
			return nil, ""
		}
		f = NumberOf(v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, ""
	}
	return f, ""
}

// storeBoolean takes booleans, "true" and "false", 1 and 0; anything else is NULL.
func storeBoolean(v any) (any, string) {
	switch x := v.(type) {
	case bool:
		return x, ""
	case string:
		switch x {
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
	default:
		if IsNumber(v) {
			switch NumberOf(v) {
			case 1:
				return true, ""
			case 0:
				return false, ""
			}
		}
	}
	return nil, ""
}

// storeTimestamp takes times, ISO 8601 texts and epoch milliseconds.
func storeTimestamp(v any) (any, string) {
	switch x := v.(type) {
	case time.Time:
		return x.UnixMilli(), ""
	case string:
		ms, ok := ParseJSDate(x)
		if !ok {
			return nil, CodeInvalidDatetime
		}
		return ms, ""
	}
	if !IsNumber(v) {
		return nil, CodeInvalidDatetime
	}
	f := NumberOf(v)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 8.64e15 {
		return nil, CodeDatetimeOutOfRange
	}
	if x, ok := v.(int64); ok {
		return x, ""
	}
	return int64(math.Floor(f)), ""
}

// storeString is JavaScript's String(), times as RFC 3339.
func storeString(v any) (any, string) {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano), ""
	}
	return JSString(v), ""
}

// BigintValue keeps integers (numbers or integer texts); anything else is
// NULL.
func BigintValue(v any) any {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 9.2e18 {
			return int64(x)
		}
		return nil
	case string:
		s := strings.Trim(x, JSWhitespace)
		if !IntText.MatchString(s) {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil
		}
		return n
	}
	return nil
}

// JSONValue deep-copies a json value into its stored form: maps and lists
// in their plain Go form, numbers as float64 (JavaScript has one number
// type), time as its ISO text.
func JSONValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = JSONValue(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = JSONValue(e)
		}
		return l
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case []byte:
		return string(x)
	case int64, uint64, int:
		return NumberOf(v)
	}
	return v
}

// OutValue types a stored value for a read or a feed (docs/wire.md §7.6):
// timestamps as ISO 8601 texts (ISOTime), whole numbers as integers, NaN
// and infinities as null. The service masks secrets before.
func OutValue(typ template.DataType, v any) any {
	if v == nil {
		return nil
	}
	return TypeOf(typ).Out(v)
}

// NumberOut sends a JavaScript number as msgpack would: integral values
// as integers, others as floats, NaN and infinities as null.
func NumberOut(f float64) any {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nil
	case f == math.Trunc(f) && math.Abs(f) <= MaxSafeInt:
		return int64(f)
	}
	return f
}

// JSONOut copies a stored json value for the wire.
func JSONOut(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = JSONOut(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = JSONOut(e)
		}
		return l
	case float64:
		return NumberOut(x)
	}
	return v
}

// JSONText is the canonical JSON text of a value (keys sorted).
func JSONText(v any) string {
	b, err := json.Marshal(JSONOut(v))
	if err != nil {
		return ""
	}
	return string(b)
}

// WalkJSON follows keys into a json value; nil when a key is missing.
func WalkJSON(v any, keys []string) any {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(x) {
				return nil
			}
			v = x[n]
		default:
			return nil
		}
	}
	return v
}
