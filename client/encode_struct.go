// This file holds how the encoder writes structs: fields by their json tags,
// omitempty and omitzero, and ",string" fields.

package client

import (
	"fmt"
	"reflect"
	"strconv"
)

func (e *encoder) structValue(v reflect.Value, path string) (any, error) {
	fields := fieldsOf(v.Type())
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		if f.omitZero && isZeroValue(fv) {
			continue
		}
		fpath := path + "." + f.name
		if f.quoted {
			s, err := quotedField(fv, fpath)
			if err != nil {
				return nil, err
			}
			out[f.name] = s
			continue
		}
		ev, err := e.value(fv, fpath)
		if err != nil {
			return nil, err
		}
		out[f.name] = ev
	}
	return out, nil
}

// quotedField renders a ",string" field the way encoding/json does.
func quotedField(v reflect.Value, path string) (any, error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(validString(v.String())), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32), nil
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	}
	return nil, fmt.Errorf("%s: ,string option on %s", path, v.Type())
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

type zeroer interface{ IsZero() bool }

func isZeroValue(v reflect.Value) bool {
	if z, ok := v.Interface().(zeroer); ok {
		if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return v.IsZero()
}
