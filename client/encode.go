// This file holds the encoder: Go values into their wire form (docs/wire.md §9),
// its walk over values, containers and map keys, and cycle detection.

package client

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// encodeValue converts a Go value into its wire form (docs/wire.md §9):
// map[string]any, []any, string, int64, uint64 (above MaxInt64 only),
// float64, bool, []byte and nil. Structs follow their json tags, times
// become RFC 3339 strings in UTC, []byte stays binary, floats stay floats.
// path names the value in error messages ("args[0]").
func encodeValue(v any, path string) (any, error) {
	if ev, ok := scalar(v); ok {
		return ev, nil
	}
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil, nil
		}
		e := encoder{}
		return e.stringMap(x, path)
	case []any:
		if x == nil {
			return nil, nil
		}
		e := encoder{}
		return e.anyList(x, path)
	}
	e := encoder{}
	return e.value(reflect.ValueOf(v), path)
}

// scalar is the fast path of the encoder for the values most payloads are
// made of: it encodes v when it is nil, a string, bool, int, int64 or
// float64, as the general walk would, without reflection and, but for an
// int or an invalid string, without allocating. ok is false for any other
// type.
func scalar(v any) (ev any, ok bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		if utf8.ValidString(x) {
			return v, true
		}
		return validString(x), true
	case bool, int64, float64:
		return v, true
	case int:
		return int64(x), true
	}
	return nil, false
}

// rowTime is the other fast path, for the time.Time most rows carry: its
// text, without the general walk's reflection; ok is false for any other
// type and for a time the walk refuses (it names the value then).
func rowTime(v any) (string, bool) {
	if t, isTime := v.(time.Time); isTime {
		return timeText(t)
	}
	return "", false
}

const (
	maxEncodeDepth = 1000
	// cycleCheckDepth is the nesting below which containers are not tracked:
	// a cyclic value always nests deeper, so cycles are still found while
	// ordinary payloads pay nothing for the check.
	cycleCheckDepth = 32
)

type encoder struct {
	depth  int
	active map[any]struct{} // containers on the current path (cycle detection)
}

var (
	timeType          = reflect.TypeFor[time.Time]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func (e *encoder) enter(key any, path string) error {
	e.depth++
	if e.depth > maxEncodeDepth {
		return fmt.Errorf("%s: value nested deeper than %d levels", path, maxEncodeDepth)
	}
	if key == nil || e.depth < cycleCheckDepth {
		return nil
	}
	if e.active == nil {
		e.active = map[any]struct{}{}
	}
	if _, ok := e.active[key]; ok {
		return fmt.Errorf("%s: cyclic value", path)
	}
	e.active[key] = struct{}{}
	return nil
}

func (e *encoder) leave(key any) {
	if key != nil && e.depth >= cycleCheckDepth {
		delete(e.active, key)
	}
	e.depth--
}

func (e *encoder) stringMap(m map[string]any, path string) (any, error) {
	key := reflect.ValueOf(m).UnsafePointer()
	if err := e.enter(key, path); err != nil {
		return nil, err
	}
	defer e.leave(key)
	out := make(map[string]any, len(m))
	for k, v := range m {
		if ev, ok := scalar(v); ok {
			out[validString(k)] = ev
			continue
		}
		if s, ok := rowTime(v); ok {
			out[validString(k)] = s
			continue
		}
		ev, err := e.nested(v, path+"."+k)
		if err != nil {
			return nil, err
		}
		out[validString(k)] = ev
	}
	return out, nil
}

func (e *encoder) anyList(l []any, path string) (any, error) {
	var key any
	if len(l) > 0 {
		key = sliceKey{reflect.ValueOf(l).UnsafePointer(), len(l)}
	}
	if err := e.enter(key, path); err != nil {
		return nil, err
	}
	defer e.leave(key)
	out := make([]any, len(l))
	for i, v := range l {
		if ev, ok := scalar(v); ok {
			out[i] = ev
			continue
		}
		if s, ok := rowTime(v); ok {
			out[i] = s
			continue
		}
		ev, err := e.nested(v, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// nested encodes a value inside a map[string]any or []any: maps and lists
// of those types directly, anything else through the general walk.
func (e *encoder) nested(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if x != nil {
			return e.stringMap(x, path)
		}
	case []any:
		if x != nil {
			return e.anyList(x, path)
		}
	}
	return e.value(reflect.ValueOf(v), path)
}

type sliceKey struct {
	ptr any
	n   int
}

func (e *encoder) value(v reflect.Value, path string) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	t := v.Type()
	switch {
	case t == timeType:
		return formatTime(v.Interface().(time.Time), path)
	case t.Kind() == reflect.Pointer && t.Elem() == timeType:
		if v.IsNil() {
			return nil, nil
		}
		return formatTime(v.Elem().Interface().(time.Time), path)
	case t == jsonNumberType:
		return numberValue(json.Number(v.String()), path)
	}
	if v.Kind() != reflect.Pointer && v.Kind() != reflect.Interface {
		if t.Implements(jsonMarshalerType) {
			return e.marshalJSON(v, path)
		}
		if t.Implements(textMarshalerType) {
			return e.marshalText(v, path)
		}
		if v.CanAddr() {
			if pt := reflect.PointerTo(t); pt.Implements(jsonMarshalerType) {
				return e.marshalJSON(v.Addr(), path)
			} else if pt.Implements(textMarshalerType) {
				return e.marshalText(v.Addr(), path)
			}
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > math.MaxInt64 {
			return u, nil
		}
		return int64(u), nil
	case reflect.Float32:
		return float32Wire(v.Float()), nil
	case reflect.Float64:
		return v.Float(), nil
	case reflect.String:
		return validString(v.String()), nil
	case reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return e.value(v.Elem(), path)
	case reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		if t.Implements(jsonMarshalerType) {
			return e.marshalJSON(v, path)
		}
		if t.Implements(textMarshalerType) {
			return e.marshalText(v, path)
		}
		key := v.UnsafePointer()
		if err := e.enter(key, path); err != nil {
			return nil, err
		}
		defer e.leave(key)
		return e.value(v.Elem(), path)
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(textMarshalerType) && !t.Elem().Implements(jsonMarshalerType) {
			return bytes.Clone(v.Bytes()), nil
		}
		var key any
		if v.Len() > 0 {
			key = sliceKey{v.UnsafePointer(), v.Len()}
		}
		if err := e.enter(key, path); err != nil {
			return nil, err
		}
		defer e.leave(key)
		return e.list(v, path)
	case reflect.Array:
		if err := e.enter(nil, path); err != nil {
			return nil, err
		}
		defer e.leave(nil)
		return e.list(v, path)
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		key := v.UnsafePointer()
		if err := e.enter(key, path); err != nil {
			return nil, err
		}
		defer e.leave(key)
		return e.mapValue(v, path)
	case reflect.Struct:
		if err := e.enter(nil, path); err != nil {
			return nil, err
		}
		defer e.leave(nil)
		return e.structValue(v, path)
	default:
		return nil, fmt.Errorf("%s: unsupported type %s", path, t)
	}
}

func (e *encoder) list(v reflect.Value, path string) (any, error) {
	out := make([]any, v.Len())
	for i := range out {
		ev, err := e.value(v.Index(i), path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

func (e *encoder) mapValue(v reflect.Value, path string) (any, error) {
	type entry struct {
		key  string
		orig string
		val  reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		k, err := mapKey(iter.Key(), path)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{key: k, orig: fmt.Sprint(iter.Key().Interface()), val: iter.Value()})
	}
	// Keys that resolve to the same string (two times naming one instant)
	// collapse to one entry; the choice is made deterministic by sorting.
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].key != entries[j].key {
			return entries[i].key < entries[j].key
		}
		return entries[i].orig < entries[j].orig
	})
	out := make(map[string]any, len(entries))
	for _, en := range entries {
		ev, err := e.value(en.val, path+"."+en.key)
		if err != nil {
			return nil, err
		}
		out[en.key] = ev
	}
	return out, nil
}

func mapKey(k reflect.Value, path string) (string, error) {
	if k.Kind() == reflect.Interface {
		if k.IsNil() {
			return "", fmt.Errorf("%s: nil map key", path)
		}
		k = k.Elem()
	}
	if k.Type() == timeType {
		return formatTime(k.Interface().(time.Time), path+" (map key)")
	}
	if t, ok := timePointer(k); ok {
		return formatTime(t, path+" (map key)")
	}
	if k.Kind() == reflect.String {
		return validString(k.String()), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", nil
		}
		b, err := tm.MarshalText()
		if err != nil {
			return "", fmt.Errorf("%s: map key: %w", path, err)
		}
		if t, ok := promotedTime(k, b, true); ok {
			return formatTime(t, path+" (map key)")
		}
		return validString(string(b)), nil
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("%s: unsupported map key type %s", path, k.Type())
}
