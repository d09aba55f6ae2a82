// This file holds how the encoder honours json.Marshaler and
// encoding.TextMarshaler, and converts the numbers of their JSON.

package client

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

func (e *encoder) marshalJSON(v reflect.Value, path string) (any, error) {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return nil, nil
	}
	b, err := v.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t, ok := promotedTime(v, b, false); ok {
		return formatTime(t, path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, fmt.Errorf("%s: MarshalJSON produced invalid JSON: %w", path, err)
	}
	return fromJSONValue(generic, path)
}

func (e *encoder) marshalText(v reflect.Value, path string) (any, error) {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return nil, nil
	}
	b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t, ok := promotedTime(v, b, true); ok {
		return formatTime(t, path)
	}
	return validString(string(b)), nil
}

// fromJSONValue converts a value decoded with UseNumber to the wire form.
func fromJSONValue(v any, path string) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return numberValue(x, path)
	case map[string]any:
		for k, e := range x {
			c, err := fromJSONValue(e, path+"."+k)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
		return x, nil
	case []any:
		for i, e := range x {
			c, err := fromJSONValue(e, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
		return x, nil
	default:
		return v, nil
	}
}

// numberValue keeps integral JSON numbers integers and the rest floats.
func numberValue(n json.Number, path string) (any, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid number %q", path, s)
	}
	return f, nil
}
