// This file holds the scalar conversions of Decode and of the encoder as
// functions of their own, without reflection: the hooks of code generated
// from an app's templates (cmd/flockgen, package typed), which reads and
// writes rows column by column.

package client

import (
	"fmt"
	"reflect"
	"time"
)

var (
	float64Type = reflect.TypeFor[float64]()
	int64Type   = reflect.TypeFor[int64]()
	boolType    = reflect.TypeFor[bool]()
	stringType  = reflect.TypeFor[string]()
)

// DecodeTime converts a value as rows carry it into a time.Time, with the
// rules of Decode: RFC 3339 text (with or without a zone, or a date alone,
// or JavaScript's signed six-digit year), epoch milliseconds (a fraction
// keeps its sub-millisecond part) or a time.Time (msgpack's timestamp
// extension); null is the zero time. name labels the value in the error.
func DecodeTime(v any, name string) (time.Time, error) { return timeValue(v, name) }

// DecodeFloat64 converts a number into a float64 with the rules of
// Decode; null is 0. name labels the value in the error.
func DecodeFloat64(v any, name string) (float64, error) {
	if v == nil {
		return 0, nil
	}
	f, ok := asFloat64(v)
	if !ok {
		return 0, decodeErr(name, v, float64Type)
	}
	return f, nil
}

// DecodeInt64 converts a whole number into an int64 with the rules of
// Decode: integers, and floats without a fraction that fit; null is 0.
// name labels the value in the error.
func DecodeInt64(v any, name string) (int64, error) {
	if v == nil {
		return 0, nil
	}
	n, ok := asInt64(v)
	if !ok {
		return 0, decodeErr(name, v, int64Type)
	}
	return n, nil
}

// DecodeBool converts a boolean with the rules of Decode; null is false.
// name labels the value in the error.
func DecodeBool(v any, name string) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	}
	return false, decodeErr(name, v, boolType)
}

// DecodeString converts text (a string, or binary) with the rules of
// Decode; null is "". name labels the value in the error.
func DecodeString(v any, name string) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", decodeErr(name, v, stringType)
}

// EncodeTime returns the wire form of t, as every operation of the client
// sends a time: RFC 3339 in UTC with the fractional digits it needs. A
// time outside the years 0000–9999 has no such form and fails with
// ErrInvalidArgument; name labels the value in the error.
func EncodeTime(t time.Time, name string) (string, error) {
	s, err := formatTime(t, name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return s, nil
}
