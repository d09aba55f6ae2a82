// This file holds the scalar conversions of the decoder: timestamps (RFC
// 3339 strings and epoch milliseconds) and numbers that must fit exactly.

package client

import (
	"fmt"
	"math"
	"reflect"
	"time"
)

// decodeTime accepts RFC 3339 strings (with or without zone, date only) and
// epoch milliseconds, the two forms timestamps take on the wire.
func decodeTime(src any, dst reflect.Value, path string) error {
	t, err := timeValue(src, path)
	if err != nil {
		return err
	}
	dst.Set(reflect.ValueOf(t))
	return nil
}

// timeValue is decodeTime without reflection: null is the zero time.
func timeValue(src any, path string) (time.Time, error) {
	switch x := src.(type) {
	case nil:
		return time.Time{}, nil
	case string:
		t, err := parseTimestamp(x)
		if err != nil {
			return time.Time{}, decodeErr(path, src, timeType)
		}
		return t, nil
	}
	if ms, ok := asInt64(src); ok {
		return time.UnixMilli(ms).UTC(), nil
	}
	if f, ok := asFloat64(src); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		ms := math.Floor(f)
		// float64(math.MaxInt64) is 2^63, the first value beyond int64.
		if ms < math.MinInt64 || ms >= math.MaxInt64 {
			return time.Time{}, fmt.Errorf("decode %s: %s epoch milliseconds is beyond the range of a time (±2^63 ms)", path, describe(src))
		}
		return time.UnixMilli(int64(ms)).Add(time.Duration((f - ms) * float64(time.Millisecond))).UTC(), nil
	}
	return time.Time{}, decodeErr(path, src, timeType)
}

var timestampLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

func parseTimestamp(s string) (time.Time, error) {
	var firstErr error
	for _, layout := range timestampLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return t, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return time.Time{}, firstErr
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

func asUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case int64:
		if x < 0 {
			return 0, false
		}
		return uint64(x), true
	case int:
		if x < 0 {
			return 0, false
		}
		return uint64(x), true
	case float64:
		if x != math.Trunc(x) || x < 0 || x >= math.MaxUint64 {
			return 0, false
		}
		return uint64(x), true
	}
	return 0, false
}

func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}
