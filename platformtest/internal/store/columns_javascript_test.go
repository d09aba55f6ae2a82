package store

import (
	"math"
	"testing"
	"time"
)

func TestJSNumber(t *testing.T) {
	cases := []struct {
		in   any
		want float64 // NaN for NaN
	}{
		{nil, 0}, {true, 1}, {false, 0}, {"", 0}, {"  ", 0}, {" 12 ", 12}, {"1e3", 1000}, {".5", 0.5}, {"5.", 5},
		{"-7", -7}, {"+7", 7}, {"0x10", 16}, {"0b101", 5}, {"0o17", 15}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
		{"12abc", math.NaN()}, {"abc", math.NaN()}, {"1,5", math.NaN()}, {"-0x10", math.NaN()}, {int64(3), 3}, {2.5, 2.5},
		{[]any{}, 0}, {[]any{"4"}, 4}, {[]any{1, 2}, math.NaN()}, {map[string]any{}, math.NaN()},
		{time.UnixMilli(1500), 1500},
	}
	for _, tc := range cases {
		got := JSNumber(tc.in)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Number(%#v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestJSStringAndParseFloat(t *testing.T) {
	strs := map[float64]string{0: "0", 1.5: "1.5", -2: "-2", 1e21: "1e+21", 1.5e-7: "1.5e-7", 123456789012: "123456789012",
		0.1: "0.1", 1e-6: "0.000001", math.Inf(1): "Infinity", math.NaN(): "NaN"}
	for f, want := range strs {
		if got := JSString(f); got != want {
			t.Errorf("String(%v) = %q, want %q", f, got, want)
		}
	}
	if got := JSString([]any{1, nil, "a"}); got != "1,,a" {
		t.Errorf("String(list) = %q", got)
	}
	floats := map[string]float64{"12.5abc": 12.5, "  -3e2x": -300, "Infinityx": math.Inf(1), ".5.5": 0.5}
	for s, want := range floats {
		if got := JSParseFloat(s); got != want {
			t.Errorf("parseFloat(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"", "x1", "e5", "."} {
		if got := JSParseFloat(s); !math.IsNaN(got) {
			t.Errorf("parseFloat(%q) = %v, want NaN", s, got)
		}
	}
}
