// Package wirevalue normalises values decoded from a WAMP serializer into the
// small set of Go types both the SDK and the fake platform hand to their
// users: map[string]any, []any, string, int64, uint64 (only above
// math.MaxInt64), float64, bool, []byte and nil.
//
// It also applies the WAMP JSON convention for binary values: a []byte travels
// in JSON as a string holding a NUL character followed by standard base64.
package wirevalue

import (
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Normalize returns v with every integer as int64 (uint64 above
// math.MaxInt64), every float as float64 and every map and list in its plain
// Go form (named types of map[string]any and []any, as nexus's wamp.Dict
// and wamp.List, become plain ones). With fromJSON set, strings following the WAMP binary convention
// become []byte. Values are converted in place where the container already
// has the normal type.
func Normalize(v any, fromJSON bool) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64, []byte:
		if s, ok := x.(string); ok && fromJSON {
			return jsonBinary(s)
		}
		return v
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint:
		return Normalize(uint64(x), false)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = Normalize(e, fromJSON)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[keyString(k)] = Normalize(e, fromJSON)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = Normalize(e, fromJSON)
		}
		return x
	default:
		if p, ok := plain(v); ok {
			return Normalize(p, fromJSON)
		}
		return v
	}
}

var (
	mapType  = reflect.TypeFor[map[string]any]()
	listType = reflect.TypeFor[[]any]()
)

// plain returns v as a map[string]any or a []any when its type is a named
// type of one of them; false otherwise.
func plain(v any) (any, bool) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Map && t.Kind() != reflect.Slice {
		return nil, false
	}
	switch {
	case t.Kind() == reflect.Map && t.ConvertibleTo(mapType):
		return reflect.ValueOf(v).Convert(mapType).Interface(), true
	case t.Kind() == reflect.Slice && t.ConvertibleTo(listType):
		return reflect.ValueOf(v).Convert(listType).Interface(), true
	}
	return nil, false
}

// List normalises a positional argument list; a nil list stays nil.
func List(l []any, fromJSON bool) []any {
	if l == nil {
		return nil
	}
	return Normalize(l, fromJSON).([]any)
}

// Dict normalises a keyword argument dictionary; a nil dict stays nil.
func Dict(d map[string]any, fromJSON bool) map[string]any {
	if d == nil {
		return nil
	}
	return Normalize(d, fromJSON).(map[string]any)
}

func keyString(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	default:
		n := Normalize(k, false)
		switch y := n.(type) {
		case int64:
			return strconv.FormatInt(y, 10)
		default:
			return ""
		}
	}
}

func jsonBinary(s string) any {
	if !strings.HasPrefix(s, "\x00") {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(s[1:])
	if err != nil {
		return s
	}
	return b
}

// ForJSON returns a copy of v in which every []byte is replaced by its WAMP
// JSON form (NUL + base64; a nil one by nil) and every NaN or infinite float
// by nil, which JSON cannot carry. Containers without such values are returned as they are, so
// the common case allocates nothing.
func ForJSON(v any) any {
	out, _ := forJSON(v)
	return out
}

func forJSON(v any) (any, bool) {
	switch x := v.(type) {
	case []byte:
		if x == nil {
			return nil, true // as msgpack writes it
		}
		return "\x00" + base64.StdEncoding.EncodeToString(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true
		}
		return v, false
	case map[string]any:
		var cp map[string]any
		for k, e := range x {
			if ne, changed := forJSON(e); changed {
				if cp == nil {
					cp = make(map[string]any, len(x))
					for k2, e2 := range x {
						cp[k2] = e2
					}
				}
				cp[k] = ne
			}
		}
		if cp == nil {
			return v, false
		}
		return cp, true
	case []any:
		var cp []any
		for i, e := range x {
			if ne, changed := forJSON(e); changed {
				if cp == nil {
					cp = append([]any(nil), x...)
				}
				cp[i] = ne
			}
		}
		if cp == nil {
			return v, false
		}
		return cp, true
	default:
		if p, ok := plain(v); ok {
			return forJSON(p)
		}
		return v, false
	}
}

// ForJSONList applies ForJSON to positional arguments; nil stays nil.
func ForJSONList(l []any) []any {
	if l == nil {
		return nil
	}
	return ForJSON(l).([]any)
}

// ForJSONDict applies ForJSON to keyword arguments; nil stays nil.
func ForJSONDict(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	return ForJSON(d).(map[string]any)
}
