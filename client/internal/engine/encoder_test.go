// This file tests Encoder against encode: a value written piece by piece
// reads back as the same value written whole, in both formats, within the
// same nesting bound; and what recycling keeps of requests and
// invocations.

package engine

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writeWith writes v, a value in wire form, through e's API: maps and
// lists piece by piece, scalars by their methods, anything else whole.
func writeWith(e *Encoder, v any) {
	switch x := v.(type) {
	case nil:
		e.Nil()
	case bool:
		e.Bool(x)
	case int64:
		e.Int(x)
	case uint64:
		e.Uint(x)
	case float64:
		e.Float(x)
	case string:
		e.String(x)
	case []any:
		if x == nil {
			e.Nil()
			return
		}
		e.List(len(x))
		for _, el := range x {
			writeWith(e, el)
		}
		e.End()
	case map[string]any:
		if x == nil {
			e.Nil()
			return
		}
		e.Map(len(x))
		for k, el := range x {
			e.Key(k)
			writeWith(e, el)
		}
		e.End()
	default:
		e.Value(v)
	}
}

// readBack decodes a YIELD whose single argument is b's value.
func readBack(t *testing.T, b []byte, json bool) any {
	t.Helper()
	msg := append(encodeHead(json), b...)
	if json {
		msg = append(msg, "]]"...)
	}
	m, err := decode(msg, json, nil, nil)
	if err != nil {
		t.Fatalf("%q: %v", msg, err)
	}
	return m.(*resultMsg).Args[0]
}

// encodeHead is the start of a RESULT with one positional argument, up to
// that argument.
func encodeHead(json bool) []byte {
	if json {
		return []byte(`[50,1,{},[`)
	}
	return []byte{0x94, 50, 1, 0x80, 0x91}
}

func TestEncoderWritesAsEncode(t *testing.T) {
	for _, json := range []bool{false, true} {
		t.Run(format(json), func(t *testing.T) {
			for _, v := range append(codecValues(), bigDict(), map[string]any{"a": []any{map[string]any{"b": 1.5, "c": "x"}, nil}}) {
				var wb []byte
				var err error
				if json {
					wb, err = appendJSON(nil, v, 1)
				} else {
					wb, err = appendValue(nil, v, 1)
				}
				if err != nil {
					t.Fatal(err)
				}
				var e Encoder
				e.reset(nil, json)
				writeWith(&e, normalWire(v))
				if e.Err() != nil {
					t.Fatalf("%#v: %v", v, e.Err())
				}
				want := readBack(t, wb, json)
				got := readBack(t, e.b, json)
				if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
					t.Errorf("%#v (-encode +Encoder):\n%s", v, diff)
				}
			}
		})
	}
}

// normalWire is v with the Go integer and float types encode takes as
// what they are written as, so that writeWith sends each by its method.
func normalWire(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint, uint8, uint16, uint32:
		return int64(reflect.ValueOf(x).Uint())
	case uint64:
		if x <= 1<<63-1 {
			// encode writes a uint64 in the unsigned forms: Value keeps it so.
			return x
		}
	}
	return v
}

// TestEncoderDepth checks the nesting bound: Encoder refuses exactly what
// encode refuses.
func TestEncoderDepth(t *testing.T) {
	for _, json := range []bool{false, true} {
		for _, depth := range []int{maxDepth - 2, maxDepth - 1, maxDepth, maxDepth + 1} {
			var v any = "leaf"
			for range depth {
				v = []any{v}
			}
			_, werr := encode(nil, json, &yieldMsg{Args: []any{v}})
			var e Encoder
			e.reset(nil, json)
			writeWith(&e, v)
			if (werr == nil) != (e.Err() == nil) {
				t.Errorf("%s, %d lists: encode says %v, Encoder %v", format(json), depth, werr, e.Err())
			}
		}
	}
}

// TestRecycledLeavesNothing checks that a recycled request and invocation
// keep their buffers, and nothing else of the request or invocation they
// served.
func TestRecycledLeavesNothing(t *testing.T) {
	req := newRequest()
	fill(reflect.ValueOf(req).Elem())
	ch, timer := req.ch, req.timer
	req.reset()
	kept := map[string]bool{"ch": true, "timer": true, "args": true, "rawBuf": true, "reader": true}
	zeroExcept(t, "request", reflect.ValueOf(req).Elem(), kept)
	if req.ch != ch || req.timer != timer || len(req.args) != 0 {
		t.Error("a recycled request lost its channel or timer, or kept arguments")
	}
	inv := new(invocation)
	fill(reflect.ValueOf(inv).Elem())
	inv.recycle()
	zeroExcept(t, "invocation", reflect.ValueOf(inv).Elem(), map[string]bool{"rawBuf": true, "encBuf": true, "reader": true, "enc": true})
	if inv.enc.b != nil {
		t.Error("a recycled invocation's encoder still holds its buffer")
	}
}

// fill sets every field of the struct v (one level deep) to a non-zero
// value of its type.
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.Uint64:
			f.SetUint(1)
		case reflect.String:
			f.SetString("x")
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.Pointer:
			if f.IsNil() {
				f.Set(reflect.New(f.Type().Elem()))
			}
		case reflect.Func:
			f.Set(reflect.MakeFunc(f.Type(), func([]reflect.Value) []reflect.Value { return nil }))
		case reflect.Struct:
			if f.Type() != reflect.TypeFor[time.Time]() && f.Type() != reflect.TypeFor[Reader]() && f.Type() != reflect.TypeFor[Encoder]() {
				fill(f)
			}
		case reflect.Array:
			if f.Len() > 0 && f.Index(0).Kind() == reflect.Interface {
				f.Index(0).Set(reflect.ValueOf("x"))
			}
		}
	}
}

// zeroExcept fails for every field of the struct v not in kept that is not
// zero (a kept slice may keep its capacity).
func zeroExcept(t *testing.T, what string, v reflect.Value, kept map[string]bool) {
	t.Helper()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		f := v.Field(i)
		if kept[name] || strings.HasPrefix(f.Type().String(), "sync.") {
			continue
		}
		if f.Kind() == reflect.Slice && f.Len() == 0 && !f.IsNil() {
			f = reflect.Zero(f.Type())
		}
		if !f.IsZero() {
			t.Errorf("a recycled %s keeps %s", what, name)
		}
	}
}
