// This file tests the decoder: struct fields, times, numbers, errors and
// the round trip through the encoder.

package client

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type reading struct {
	Tsp       time.Time         `json:"tsp"`
	Temp      float64           `json:"temperature"`
	N         int32             `json:"n"`
	Source    *string           `json:"source"`
	DeviceKey int               `json:"device_key"`
	Blob      []byte            `json:"blob"`
	Tags      map[string]string `json:"tags"`
	Values    []float32         `json:"values"`
	Quoted    int               `json:"quoted,string"`
	Anything  any               `json:"anything"`
	CaseMatch string
}

func TestDecode(t *testing.T) {
	src := map[string]any{
		"tsp":         int64(1767225600000),
		"temperature": int64(22),
		"n":           int64(-5),
		"source":      "lab",
		"device_key":  int64(42),
		"blob":        "AQI=",
		"tags":        map[string]any{"a": "b"},
		"values":      []any{int64(1), 0.5},
		"quoted":      "17",
		"anything":    []any{"x", int64(1)},
		"casematch":   "ok",
		"unknown":     "ignored",
	}
	got, err := Decode[reading](src)
	if err != nil {
		t.Fatal(err)
	}
	source := "lab"
	want := reading{
		Tsp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Temp: 22, N: -5, Source: &source, DeviceKey: 42,
		Blob: []byte{1, 2}, Tags: map[string]string{"a": "b"}, Values: []float32{1, 0.5}, Quoted: 17,
		Anything: []any{"x", int64(1)}, CaseMatch: "ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeTimes(t *testing.T) {
	want := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	for _, in := range []any{"2026-01-15T10:30:00Z", "2026-01-15T11:30:00+01:00", "2026-01-15T10:30:00", int64(1768473000000), float64(1768473000000), want, want.In(time.FixedZone("x", 3600))} {
		got, err := Decode[time.Time](in)
		if err != nil || !got.Equal(want) {
			t.Errorf("Decode[time.Time](%v) = %v, %v; want %v", in, got, err, want)
		}
	}
	// Years outside 0000–9999 as JavaScript writes them (the platform's
	// timestamps), and as epoch milliseconds.
	for in, want := range map[any]time.Time{
		"+275760-09-13T00:00:00.000Z": time.UnixMilli(8.64e15).UTC(),
		"-271821-04-20T00:00:00.000Z": time.UnixMilli(-8.64e15).UTC(),
		"-000001-01-01T00:00:00.000Z": time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		"+010000-02-29T12:00:00.5Z":   time.Date(10000, 2, 29, 12, 0, 0, 5e8, time.UTC),
		int64(8.64e15):                time.UnixMilli(8.64e15).UTC(),
	} {
		if got, err := Decode[time.Time](in); err != nil || !got.Equal(want) {
			t.Errorf("Decode[time.Time](%v) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"+27576-09-13T00:00:00Z", "+2757600-09-13T00:00:00Z", "+275760-13-01T00:00:00Z", "+27a760-01-01T00:00:00Z"} {
		if got, err := Decode[time.Time](in); err == nil {
			t.Errorf("Decode[time.Time](%q) = %v, want an error", in, got)
		}
	}
	// The extremes of epoch milliseconds are times, far beyond year 9999.
	for _, ms := range []any{int64(math.MaxInt64), int64(math.MinInt64), -math.Ldexp(1, 63)} {
		got, err := Decode[time.Time](ms)
		if err != nil || got.UnixMilli() != math.MinInt64 && got.UnixMilli() != math.MaxInt64 {
			t.Errorf("Decode[time.Time](%v) = %v (%d ms), %v", ms, got, got.UnixMilli(), err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		fn   func() error
		want string
	}{
		{"string into float", func() error { _, err := Decode[reading](map[string]any{"temperature": "hot"}); return err }, `decode value.temperature: cannot use string "hot" as float64`},
		{"overflow", func() error { _, err := Decode[int8](int64(300)); return err }, "cannot use int64 300 as int8"},
		{"fraction into int", func() error { _, err := Decode[int](1.5); return err }, "cannot use float64 1.5 as int"},
		{"negative into uint", func() error { _, err := Decode[uint](int64(-1)); return err }, "as uint"},
		{"list into struct", func() error { _, err := Decode[reading]([]any{1}); return err }, "as client.reading"},
		{"bad element", func() error { _, err := Decode[[]int]([]any{int64(1), "x"}); return err }, "value[1]"},
		{"bad time", func() error { _, err := Decode[time.Time]("yesterday"); return err }, "as time.Time"},
		{"epoch ms beyond int64", func() error { _, err := Decode[time.Time](1e19); return err }, "float64 1e+19 epoch milliseconds is beyond the range of a time"},
		{"epoch ms below int64", func() error { _, err := Decode[time.Time](-1e300); return err }, "beyond the range of a time"},
		{"epoch ms uint64 beyond int64", func() error { _, err := Decode[time.Time](uint64(math.MaxUint64)); return err }, "beyond the range of a time"},
		{"epoch ms 2^63", func() error { _, err := Decode[time.Time](math.Ldexp(1, 63)); return err }, "beyond the range of a time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if err := DecodeInto(1, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("DecodeInto(nil) = %v, want ErrInvalidArgument", err)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	in := reading{Tsp: time.Date(2026, 3, 1, 12, 0, 0, 500000000, time.UTC), Temp: math.Pi, N: 3, Blob: []byte("xyz"), Tags: map[string]string{}, Quoted: 9}
	enc, err := encodeValue(in, "row")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode[reading](enc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
}
