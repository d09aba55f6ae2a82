// This file holds Decode and DecodeInto: wire values (event arguments, call
// results, rows) into Go values, the reverse of the encoder.

package client

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Decode converts a value received from the platform (an event argument, a
// call result, a row) into T. Maps fill structs by their json tags (exact
// names first, then case-insensitively), numbers convert to any numeric type
// that holds them exactly, times accept RFC 3339 strings and epoch
// milliseconds, []byte accepts binary and base64 strings, and types with
// UnmarshalJSON or UnmarshalText are honoured.
func Decode[T any](v any) (T, error) {
	var out T
	err := decodeInto(v, reflect.ValueOf(&out).Elem(), "value")
	return out, err
}

// DecodeInto decodes v into the value dst points to, with the rules of Decode.
func DecodeInto(v any, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: decode needs a non-nil pointer, got %T", ErrInvalidArgument, dst)
	}
	return decodeInto(v, rv.Elem(), "value")
}

// decodePayload decodes the first positional argument of a payload, or its
// keyword arguments when there is none, into v.
func decodePayload(args []any, kwargs map[string]any, v any) error {
	if len(args) > 0 {
		return DecodeInto(args[0], v)
	}
	if kwargs != nil {
		return DecodeInto(kwargs, v)
	}
	return DecodeInto(nil, v)
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func decodeErr(path string, src any, dst reflect.Type) error {
	return fmt.Errorf("decode %s: cannot use %s as %s", path, describe(src), dst)
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("string %q", x)
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T %v", v, v)
	}
}

func decodeInto(src any, dst reflect.Value, path string) error {
	t := dst.Type()
	if t == timeType {
		return decodeTime(src, dst, path)
	}
	if src == nil {
		dst.Set(reflect.Zero(t))
		return nil
	}
	if dst.Kind() != reflect.Pointer && dst.Kind() != reflect.Interface && dst.CanAddr() {
		pt := reflect.PointerTo(t)
		if pt.Implements(jsonUnmarshalerType) {
			b, err := json.Marshal(src)
			if err != nil {
				return fmt.Errorf("decode %s: %w", path, err)
			}
			if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
				return fmt.Errorf("decode %s: %w", path, err)
			}
			return nil
		}
		if s, ok := src.(string); ok && pt.Implements(textUnmarshalerType) {
			if err := dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
				return fmt.Errorf("decode %s: %w", path, err)
			}
			return nil
		}
	}
	switch dst.Kind() {
	case reflect.Interface:
		sv := reflect.ValueOf(src)
		if !sv.Type().AssignableTo(t) {
			return decodeErr(path, src, t)
		}
		dst.Set(sv)
		return nil
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return decodeInto(src, dst.Elem(), path)
	case reflect.Bool:
		b, ok := src.(bool)
		if !ok {
			return decodeErr(path, src, t)
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := asInt64(src)
		if !ok || dst.OverflowInt(n) {
			return decodeErr(path, src, t)
		}
		dst.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := asUint64(src)
		if !ok || dst.OverflowUint(n) {
			return decodeErr(path, src, t)
		}
		dst.SetUint(n)
		return nil
	case reflect.Float32, reflect.Float64:
		f, ok := asFloat64(src)
		if !ok || (dst.Kind() == reflect.Float32 && dst.OverflowFloat(f) && !math.IsInf(f, 0)) {
			return decodeErr(path, src, t)
		}
		dst.SetFloat(f)
		return nil
	case reflect.String:
		switch x := src.(type) {
		case string:
			dst.SetString(x)
		case []byte:
			dst.SetString(string(x))
		default:
			return decodeErr(path, src, t)
		}
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			switch x := src.(type) {
			case []byte:
				dst.SetBytes(bytes.Clone(x))
				return nil
			case string:
				b, err := base64.StdEncoding.DecodeString(x)
				if err != nil {
					return decodeErr(path, src, t)
				}
				dst.SetBytes(b)
				return nil
			}
		}
		l, ok := src.([]any)
		if !ok {
			return decodeErr(path, src, t)
		}
		s := reflect.MakeSlice(t, len(l), len(l))
		for i, e := range l {
			if err := decodeInto(e, s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		dst.Set(s)
		return nil
	case reflect.Array:
		l, ok := src.([]any)
		if !ok || len(l) > dst.Len() {
			return decodeErr(path, src, t)
		}
		for i := 0; i < dst.Len(); i++ {
			var e any
			if i < len(l) {
				e = l[i]
			}
			if err := decodeInto(e, dst.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		m, ok := src.(map[string]any)
		if !ok {
			return decodeErr(path, src, t)
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(t, len(m)))
		}
		for k, e := range m {
			kv, err := decodeMapKey(k, t.Key(), path)
			if err != nil {
				return err
			}
			ev := reflect.New(t.Elem()).Elem()
			if err := decodeInto(e, ev, path+"."+k); err != nil {
				return err
			}
			dst.SetMapIndex(kv, ev)
		}
		return nil
	case reflect.Struct:
		m, ok := src.(map[string]any)
		if !ok {
			return decodeErr(path, src, t)
		}
		return decodeStruct(m, dst, path)
	}
	return decodeErr(path, src, t)
}

func decodeStruct(m map[string]any, dst reflect.Value, path string) error {
	fields := fieldsOf(dst.Type())
	for key, val := range m {
		f := matchField(fields, key)
		if f == nil {
			continue
		}
		fv, err := fieldForSet(dst, f.index)
		if err != nil {
			return fmt.Errorf("decode %s.%s: %w", path, key, err)
		}
		if f.quoted {
			if s, ok := val.(string); ok {
				val = unquoteField(s, fv.Type())
			}
		}
		if err := decodeInto(val, fv, path+"."+key); err != nil {
			return err
		}
	}
	return nil
}

func matchField(fields []structField, key string) *structField {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, key) {
			return &fields[i]
		}
	}
	return nil
}

// fieldForSet walks an index path, allocating nil embedded pointers.
func fieldForSet(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, fmt.Errorf("cannot set embedded pointer to unexported struct %s", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// unquoteField undoes a ",string" encoding: a number, bool or quoted string
// inside a string.
func unquoteField(s string, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n
		}
	case reflect.Float32, reflect.Float64:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

func decodeMapKey(k string, t reflect.Type, path string) (reflect.Value, error) {
	kv := reflect.New(t).Elem()
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		if err := kv.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(k)); err != nil {
			return kv, fmt.Errorf("decode %s: key %q: %w", path, k, err)
		}
		return kv, nil
	}
	switch t.Kind() {
	case reflect.String:
		kv.SetString(k)
		return kv, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(k, 10, 64)
		if err != nil || kv.OverflowInt(n) {
			return kv, fmt.Errorf("decode %s: key %q is not a %s", path, k, t)
		}
		kv.SetInt(n)
		return kv, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(k, 10, 64)
		if err != nil || kv.OverflowUint(n) {
			return kv, fmt.Errorf("decode %s: key %q is not a %s", path, k, t)
		}
		kv.SetUint(n)
		return kv, nil
	}
	return kv, fmt.Errorf("decode %s: unsupported map key type %s", path, t)
}
