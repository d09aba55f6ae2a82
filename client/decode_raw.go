// This file holds the decoding of a value straight from its message (the
// engine's Reader), with the rules of Decode, for Into and for the
// invocations of LazyArgs: structs, scalars and pointers are read as they
// come, without the []any and map[string]any a decoded payload is made of;
// any other type (times, maps, lists, interfaces, types with UnmarshalJSON
// or UnmarshalText, ",string" fields) is read in wire form and handed to
// decodeInto, so that the rules stay those of one decoder.

package client

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// decodePayloadRaw decodes what decodePayload would take from the payload
// r reads (the first positional argument, else the keyword arguments)
// into the value v points to.
func decodePayloadRaw(r *engine.Reader, v any) error {
	rv := reflect.ValueOf(v).Elem()
	if !r.First() {
		return decodeInto(nil, rv, rawRoot)
	}
	if err := decodeRaw(r, rv); err != nil {
		return err
	}
	return r.Err()
}

// rawRoot names the value decoded in errors, as Decode names it; r.Path
// names the fields below.
const rawRoot = "value"

// decodeRaw decodes the value at r's cursor into dst as decodeInto would
// decode its wire form.
func decodeRaw(r *engine.Reader, dst reflect.Value) error {
	viaWire := dst.Kind() != reflect.Pointer && dst.Kind() != reflect.Interface && wireFormOnly(dst.Type())
	return decodeRawAs(r, dst, viaWire)
}

// decodeRawAs is decodeRaw with wireFormOnly of dst's type known.
func decodeRawAs(r *engine.Reader, dst reflect.Value, viaWire bool) error {
	t := dst.Type()
	k := r.Kind()
	if k == engine.KindNone {
		if err := r.Err(); err != nil {
			return err
		}
		return fmt.Errorf("decode %s: no value", r.Path(rawRoot))
	}
	if viaWire {
		return decodeWire(r, dst)
	}
	if k == engine.KindNil {
		r.Skip()
		dst.Set(reflect.Zero(t))
		return nil
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return decodeRaw(r, dst.Elem())
	case reflect.Bool:
		if k == engine.KindBool {
			dst.SetBool(r.Bool())
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if src, ok := rawNumber(r, k); ok {
			n, ok := asInt64(src.value())
			if !ok || dst.OverflowInt(n) {
				return decodeErr(r.Path(rawRoot), src.value(), t)
			}
			dst.SetInt(n)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if src, ok := rawNumber(r, k); ok {
			n, ok := asUint64(src.value())
			if !ok || dst.OverflowUint(n) {
				return decodeErr(r.Path(rawRoot), src.value(), t)
			}
			dst.SetUint(n)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		if src, ok := rawNumber(r, k); ok {
			f, _ := asFloat64(src.value())
			if dst.Kind() == reflect.Float32 && dst.OverflowFloat(f) && !math.IsInf(f, 0) {
				return decodeErr(r.Path(rawRoot), src.value(), t)
			}
			dst.SetFloat(f)
			return nil
		}
	case reflect.String:
		if k == engine.KindString || k == engine.KindBinary {
			dst.SetString(r.String())
			return nil
		}
	case reflect.Struct:
		if k == engine.KindMap {
			return decodeRawStruct(r, dst)
		}
	}
	return decodeWire(r, dst)
}

// rawNumber reads a number at the cursor; false, having read nothing, for
// anything else.
func rawNumber(r *engine.Reader, k engine.Kind) (number, bool) {
	switch k {
	case engine.KindInt:
		return number{kind: k, i: r.Int()}, true
	case engine.KindUint:
		return number{kind: k, u: r.Uint()}, true
	case engine.KindFloat:
		return number{kind: k, f: r.Float()}, true
	}
	return number{}, false
}

// number is a number read, kept unboxed.
type number struct {
	kind engine.Kind
	i    int64
	u    uint64
	f    float64
}

// value returns n in its wire type, for the conversions of the decoder
// (which keep it on the stack) and its errors.
func (n number) value() any {
	switch n.kind {
	case engine.KindInt:
		return n.i
	case engine.KindUint:
		return n.u
	}
	return n.f
}

// decodeWire reads the value at the cursor in wire form and decodes that.
func decodeWire(r *engine.Reader, dst reflect.Value) error {
	path := r.Path(rawRoot)
	v := r.Value()
	if err := r.Err(); err != nil {
		return err
	}
	return decodeInto(v, dst, path)
}

// decodeRawStruct decodes the map at the cursor into the struct dst, as
// decodeStruct does.
func decodeRawStruct(r *engine.Reader, dst reflect.Value) error {
	fields := fieldsOf(dst.Type())
	r.Map()
	for r.Next() {
		f := matchFieldBytes(fields, r.Key())
		if f == nil {
			r.Skip()
			continue
		}
		fv, err := fieldForSet(dst, f.index)
		if err != nil {
			return fmt.Errorf("decode %s: %w", r.Path(rawRoot), err)
		}
		if f.quoted {
			path := r.Path(rawRoot)
			val := r.Value()
			if s, ok := val.(string); ok {
				val = unquoteField(s, fv.Type())
			}
			if err := decodeInto(val, fv, path); err != nil {
				return err
			}
			continue
		}
		if err := decodeRawAs(r, fv, f.viaWire); err != nil {
			return err
		}
	}
	return r.Err()
}

// matchFieldBytes is matchField for a key read from a message.
func matchFieldBytes(fields []structField, key []byte) *structField {
	for i := range fields {
		if fields[i].name == string(key) {
			return &fields[i]
		}
	}
	for i := range fields {
		if strings.EqualFold(fields[i].name, string(key)) {
			return &fields[i]
		}
	}
	return nil
}
