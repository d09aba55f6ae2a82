// This file holds the writing of a handler's result straight into the
// YIELD (the engine's Encoder), with the rules of the encoder, for a
// result that is a struct or a pointer to one: fields and scalars are
// written as they are, without the map[string]any encodeValue would build;
// any other value inside (times, maps, lists, types with MarshalJSON or
// MarshalText, json.Number) is encoded by encodeValue and written in wire
// form, so that the rules stay those of one encoder.

package client

import (
	"math"
	"reflect"
	"strconv"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// directStruct reports whether v, a handler's result, is a struct (or a
// pointer to one) encodeRaw writes field by field.
func directStruct(v any) bool {
	t := reflect.TypeOf(v)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		if !plainType(t) {
			return false
		}
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && plainType(t)
}

// rawEncoder is encodeRaw's walk: the fields it is in (for the path of an
// error), to a depth beyond which values go through encodeValue (which
// finds cycles).
type rawEncoder struct {
	root  string
	depth int
	names [cycleCheckDepth]string
	named int
}

// path names the value being written: root, then the fields on the way.
func (re *rawEncoder) path() string {
	p := re.root
	for _, n := range re.names[:re.named] {
		p += "." + n
	}
	return p
}

// value writes v, whose path names it in errors, as encodeValue would
// encode it.
func (re *rawEncoder) value(w *engine.Encoder, v reflect.Value) error {
	if !v.IsValid() {
		w.Nil()
		return nil
	}
	return re.valueAs(w, v, plainType(v.Type()))
}

// valueAs is value with plainType of v's type known.
func (re *rawEncoder) valueAs(w *engine.Encoder, v reflect.Value, plain bool) error {
	if re.depth >= cycleCheckDepth || !plain {
		return re.wire(w, v)
	}
	re.depth++
	err := re.plain(w, v)
	re.depth--
	return err
}

// plain writes v of a plain type.
func (re *rawEncoder) plain(w *engine.Encoder, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		w.Bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.Int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := v.Uint(); u > math.MaxInt64 {
			w.Uint(u)
		} else {
			w.Int(int64(u))
		}
	case reflect.Float32:
		w.Float(float32Wire(v.Float()))
	case reflect.Float64:
		w.Float(v.Float())
	case reflect.String:
		w.String(validString(v.String()))
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			w.Nil()
			return nil
		}
		return re.value(w, v.Elem())
	case reflect.Struct:
		return re.structValue(w, v)
	default:
		return re.wire(w, v)
	}
	return nil
}

// wire writes v as encodeValue encodes it.
func (re *rawEncoder) wire(w *engine.Encoder, v reflect.Value) error {
	e := encoder{}
	ev, err := e.value(v, re.path())
	if err != nil {
		return err
	}
	w.Value(ev)
	return nil
}

// structValue writes a struct as structValue encodes it: a map of its
// fields.
func (re *rawEncoder) structValue(w *engine.Encoder, v reflect.Value) error {
	ti := infoOf(v.Type())
	fields := ti.fields
	n := len(fields)
	if !ti.fixed {
		n = 0
		for i := range fields {
			if _, ok := re.field(v, &fields[i]); ok {
				n++
			}
		}
	}
	w.Map(n)
	for i := range fields {
		f := &fields[i]
		fv, ok := re.field(v, f)
		if !ok {
			continue
		}
		w.Key(f.name)
		re.names[re.named] = f.name
		re.named++
		var err error
		if f.quoted {
			var s any
			if s, err = quotedField(fv, re.path()); err == nil {
				w.Value(s)
			}
		} else {
			err = re.valueAs(w, fv, f.plain)
		}
		re.named--
		if err != nil {
			return err
		}
	}
	w.End()
	return nil
}

// field returns the value of field f of v when it is written.
func (re *rawEncoder) field(v reflect.Value, f *structField) (reflect.Value, bool) {
	fv, ok := fieldByIndex(v, f.index)
	if !ok || f.omitEmpty && isEmptyValue(fv) || f.omitZero && isZeroValue(fv) {
		return reflect.Value{}, false
	}
	return fv, true
}

// float32Wire is a float32 in wire form: the float64 of its shortest
// decimal text, so that 0.1 stays 0.1 (NaN and ±Inf stay as they are).
func float32Wire(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	w, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	return w
}
