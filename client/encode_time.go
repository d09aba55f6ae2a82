// This file holds how the encoder writes times: RFC 3339 in UTC, whether
// the time is a time.Time, a *time.Time or a type whose marshaling is that
// of an embedded time.Time, and the refusal of years RFC 3339 cannot write.

package client

import (
	"bytes"
	"fmt"
	"reflect"
	"time"
)

// formatTime writes t as RFC 3339 in UTC (docs/wire.md §9). Years outside
// 0000–9999 have no RFC 3339 form the decoder (or the platform) reads, so
// they are refused; path names the value.
func formatTime(t time.Time, path string) (string, error) {
	if s, ok := timeText(t); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s: the time %s is outside the years 0000–9999 that RFC 3339 can write", path, t.UTC().Format("2006-01-02T15:04:05Z"))
}

// timeText is formatTime's text of t; ok is false outside the years
// 0000–9999, where formatTime names the value in its error.
func timeText(t time.Time) (s string, ok bool) {
	u := t.UTC()
	if y := u.Year(); y < 0 || y > 9999 {
		return "", false
	}
	return u.Format(time.RFC3339Nano), true
}

// timePointer returns the time a non-nil *time.Time points to.
func timePointer(v reflect.Value) (time.Time, bool) {
	if v.Kind() != reflect.Pointer || v.Type().Elem() != timeType || v.IsNil() {
		return time.Time{}, false
	}
	return v.Elem().Interface().(time.Time), true
}

// promotedTime returns the embedded time.Time of v when v is a struct
// embedding one and out, what v's MarshalJSON (text: MarshalText) wrote,
// is what the embedded time writes: the method is the time's, promoted, and
// the value is written as a time, in UTC.
func promotedTime(v reflect.Value, out []byte, text bool) (time.Time, bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return time.Time{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return time.Time{}, false
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.Anonymous {
			continue
		}
		fv := v.Field(i)
		if t, ok := timePointer(fv); ok {
			fv = reflect.ValueOf(t)
		}
		if fv.Type() != timeType {
			continue
		}
		t := fv.Interface().(time.Time)
		var own []byte
		var err error
		if text {
			own, err = t.MarshalText()
		} else {
			own, err = t.MarshalJSON()
		}
		if err == nil && bytes.Equal(own, out) {
			return t, true
		}
	}
	return time.Time{}, false
}
