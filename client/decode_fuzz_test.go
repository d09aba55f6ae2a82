// This file holds FuzzDecode, the fuzz target of the decoder.

package client

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// FuzzDecode reads the fuzzer's input as msgpack, as the router would
// deliver a value, and decodes it into Go types of every kind. Decoding
// never panics; into any it gives the value back; epoch milliseconds
// beyond the int64 range are refused as times; and whenever decoding
// succeeds, encode and decode agree: the result encodes unless it holds a
// time outside the years 0000–9999 (then it is refused), and decoding that
// encoding into the same type and encoding again yields the same wire
// value.
func FuzzDecode(f *testing.F) {
	ser := &serialize.MessagePackSerializer{}
	for _, v := range []any{
		map[string]any{
			"tsp": int64(1767225600000), "temperature": int64(22), "n": int64(-5), "source": "lab",
			"device_key": int64(42), "blob": "AQI=", "tags": map[string]any{"a": "b"},
			"values": []any{int64(1), 0.5}, "quoted": "17", "anything": []any{"x", int64(1)},
			"casematch": "ok", "unknown": "ignored",
		},
		map[string]any{"name": "n", "small": int64(300), "f": "hot", "at": "2026-01-15T11:30:00+01:00", "blob": []byte{1, 2}},
		[]any{map[string]any{"tsp": "2026-01-15T10:30:00", "n": 1.5}, nil, map[string]any{"by_key": map[string]any{"7": "x"}}},
		"2026-01-15", int64(1768473000000), float64(1768473000000), uint64(math.MaxUint64), math.NaN(),
		"yesterday", []any{int64(1), "x"}, []byte("xyz"), "a\xffb", true, nil,
		1e19, -1e300, float64(253402300800000), int64(-62167219200001), map[string]any{"at": 1e30, "when": float64(-62167219200000)},
	} {
		b, err := ser.SerializeDataItem(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw any
		if ser.DeserializeDataItem(data, &raw) != nil {
			return
		}
		v := wirevalue.Normalize(raw, false)
		back, err := Decode[any](v)
		if err != nil || !cmp.Equal(v, back, cmpopts.EquateNaNs()) {
			t.Fatalf("Decode[any](%#v) = %#v, %v; want the value itself", v, back, err)
		}
		checkEpochRange(t, v)
		checkStable[fuzzRecord](t, v)
		checkStable[reading](t, v)
		checkStable[map[string]any](t, v)
		checkStable[[]any](t, v)
		checkStable[map[string]int](t, v)
		checkStable[[]*float32](t, v)
		checkStable[[2]uint8](t, v)
		checkStable[time.Time](t, v)
		checkStable[[]byte](t, v)
		checkStable[string](t, v)
		if list, ok := v.([]any); ok {
			if rows, err := toRows(list); err == nil {
				if _, err := DecodeRows[fuzzRecord](rows); err == nil {
					checkStable[[]fuzzRecord](t, v)
				}
			}
		}
	})
}

// checkEpochRange checks that a number of epoch milliseconds beyond the
// int64 range is refused as a time instead of overflowing.
func checkEpochRange(t *testing.T, v any) {
	t.Helper()
	var beyond bool
	switch x := v.(type) {
	case float64:
		ms := math.Floor(x)
		beyond = !math.IsNaN(x) && (ms >= math.Ldexp(1, 63) || ms < -math.Ldexp(1, 63))
	case uint64:
		beyond = x > math.MaxInt64
	}
	if !beyond {
		return
	}
	if got, err := Decode[time.Time](v); err == nil || !strings.Contains(err.Error(), "beyond the range of a time") {
		t.Fatalf("Decode[time.Time](%v) = %v, %v; want a refusal", v, got, err)
	}
}

// checkStable decodes v into T and, when that succeeds, checks that the
// encoder refuses the result when it holds a time it cannot write, and
// otherwise that its encoding decodes into T again and encodes the same.
func checkStable[T any](t *testing.T, v any) {
	t.Helper()
	first, err := Decode[T](v)
	if err != nil {
		return
	}
	enc, err := encodeValue(first, "v")
	if !writableTimes(reflect.ValueOf(first)) {
		if err == nil || !strings.Contains(err.Error(), "outside the years 0000–9999") {
			t.Fatalf("encodeValue of the decoded %T %#v = %#v, %v; a time outside 0000–9999 must be refused", first, first, enc, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("encodeValue of the decoded %T %#v: %v", first, first, err)
	}
	checkWire(t, enc, "v")
	second, err := Decode[T](enc)
	if err != nil {
		t.Fatalf("Decode[%T] of its own encoding %#v: %v", first, enc, err)
	}
	again, err := encodeValue(second, "v")
	if err != nil {
		t.Fatalf("encodeValue of the decoded %T %#v: %v", second, second, err)
	}
	if diff := cmp.Diff(enc, again, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("%T: encode(decode(x)) is not stable (-first +second):\n%s", first, diff)
	}
}

// writableTimes reports whether every time.Time in v lies in the years
// RFC 3339 can write (0 to 9999, in UTC); the encoder refuses other times.
func writableTimes(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == timeType {
			y := v.Interface().(time.Time).UTC().Year()
			return y >= 0 && y <= 9999
		}
		for i := range v.NumField() {
			if !writableTimes(v.Field(i)) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || writableTimes(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !writableTimes(v.Index(i)) {
				return false
			}
		}
	}
	return true
}
