// This file holds the scalar conversions of the decoder: timestamps (RFC
// 3339 strings and epoch milliseconds) and numbers that must fit exactly.

package client

import (
	"fmt"
	"math"
	"reflect"
	"time"
)

// decodeTime accepts RFC 3339 strings (with or without zone, date only),
// epoch milliseconds and msgpack's timestamp extension (a time.Time), the
// forms timestamps take on the wire.
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
	case time.Time: // msgpack's timestamp extension
		return x, nil
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
	if t, ok := parseExtendedYear(s); ok {
		return t, nil
	}
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

// parseExtendedYear reads the form JavaScript's toISOString gives a time
// outside the years 0000–9999, a signed six-digit year
// (+010000-01-01T00:00:00.000Z, -000001-…), which the platform sends for
// such timestamps and time.Parse does not read.
func parseExtendedYear(s string) (time.Time, bool) {
	if len(s) < 8 || (s[0] != '+' && s[0] != '-') || s[7] != '-' {
		return time.Time{}, false
	}
	year := 0
	for _, c := range s[1:7] {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
		year = year*10 + int(c-'0')
	}
	if s[0] == '-' {
		year = -year
	}
	// 2000 is a leap year: every month and day JavaScript writes parses.
	t, err := time.Parse(time.RFC3339Nano, "2000"+s[7:])
	if err != nil {
		return time.Time{}, false
	}
	return time.Date(year, t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()), true
}
