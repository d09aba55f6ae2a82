// This file holds the value rules of the fake data backend (fleetdb, a
// JavaScript service over Postgres): the storage typing of each column
// type (docs/fake.md) and the typing of values on the way out (docs/wire.md
// §7.6), with JavaScript's conversions (javascript.go). It serves no URI.

package fleetdb

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/template"
)

// secretPlaceholder is what every read and feed shows instead of a
// non-null value of a secret column (the seed's SECRET_PLACEHOLDER). Written
// to a secret column of an entity table it means "keep the stored value".
// The platform exports it as platformtest.SecretPlaceholder.
const secretPlaceholder = "__secret__"

// secretUIMask is the mask of eight bullets the platform's UI shows; written
// back it means "keep the stored value", like secretPlaceholder.
const secretUIMask = "••••••••"

// secretCipherPrefix starts an already-encrypted secret, which writes refuse.
const secretCipherPrefix = "ifsec:1:"

// Postgres error codes the fake reports in runtime_error objects.
const (
	pgDatatypeMismatch   = "42804" // json into a non-json column
	pgUndefinedColumn    = "42703" // projected column that does not exist
	pgInvalidTextRep     = "22P02" // json value that is not a number, cast numeric
	pgInvalidDatetime    = "22007" // unparseable timestamp text
	pgDatetimeOutOfRange = "22008" // non-finite timestamp number
)

// maxSafeInt is the largest integer a JavaScript number holds exactly.
const maxSafeInt = 1 << 53

// storeValue applies a column type's storage typing to a defined value.
// It returns the stored value (nil for NULL) or the Postgres error code the
// insert fails with.
func storeValue(typ template.DataType, v any) (any, string) {
	if v == nil {
		return nil, ""
	}
	switch v.(type) {
	case map[string]any, []any:
		if typ != template.TypeJSON {
			return nil, pgDatatypeMismatch
		}
	}
	switch typ {
	case template.TypeJSON:
		return jsonValue(v), ""
	case template.TypeNumeric:
		var f float64
		switch x := v.(type) {
		case string:
			f = jsParseFloat(x)
		case []byte:
			f = jsParseFloat(string(x))
		default:
			if !isNumber(v) {
				return nil, ""
			}
			f = numberOf(v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, ""
		}
		return f, ""
	case template.TypeBigint:
		return bigintValue(v), ""
	case template.TypeBoolean:
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
			if isNumber(v) {
				switch numberOf(v) {
				case 1:
					return true, ""
				case 0:
					return false, ""
				}
			}
		}
		return nil, ""
	case template.TypeTimestamp:
		switch x := v.(type) {
		case time.Time:
			return x.UnixMilli(), ""
		case string:
			ms, ok := parseJSDate(x)
			if !ok {
				return nil, pgInvalidDatetime
			}
			return ms, ""
		}
		if !isNumber(v) {
			return nil, pgInvalidDatetime
		}
		f := numberOf(v)
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 8.64e15 {
			return nil, pgDatetimeOutOfRange
		}
		if x, ok := v.(int64); ok {
			return x, ""
		}
		return int64(math.Floor(f)), ""
	default: // string
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339Nano), ""
		}
		return jsString(v), ""
	}
}

// bigintValue keeps integers (numbers or integer texts); anything else is
// NULL.
func bigintValue(v any) any {
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
		s := strings.Trim(x, jsWhitespace)
		if !intText.MatchString(s) {
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

// jsonValue deep-copies a json value into its stored form: maps and lists
// in their plain Go form, numbers as float64 (JavaScript has one number
// type), time as its ISO text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonValue(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = jsonValue(e)
		}
		return l
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case []byte:
		return string(x)
	case int64, uint64, int:
		return numberOf(v)
	}
	return v
}

// outValue types a stored value for a read or a feed (docs/wire.md §7.6):
// timestamps as ISO 8601 texts (isoTime), whole numbers as integers, NaN
// and infinities as null, secrets masked.
func outValue(typ template.DataType, secret bool, v any) any {
	if v == nil {
		return nil
	}
	if secret {
		return secretPlaceholder
	}
	switch typ {
	case template.TypeJSON:
		return jsonOut(v)
	case template.TypeNumeric:
		return numberOut(v.(float64))
	case template.TypeTimestamp:
		if ms, ok := v.(int64); ok {
			return isoTime(ms)
		}
	}
	return v
}

// numberOut sends a JavaScript number as msgpack would: integral values
// as integers, others as floats, NaN and infinities as null.
func numberOut(f float64) any {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nil
	case f == math.Trunc(f) && math.Abs(f) <= maxSafeInt:
		return int64(f)
	}
	return f
}

// jsonOut copies a stored json value for the wire.
func jsonOut(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonOut(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = jsonOut(e)
		}
		return l
	case float64:
		return numberOut(x)
	}
	return v
}

// jsonText is the canonical JSON text of a value (keys sorted).
func jsonText(v any) string {
	b, err := json.Marshal(jsonOut(v))
	if err != nil {
		return ""
	}
	return string(b)
}
