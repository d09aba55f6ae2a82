package fleetdb

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
		got := jsNumber(tc.in)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("Number(%#v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestJSStringAndParseFloat(t *testing.T) {
	strs := map[float64]string{0: "0", 1.5: "1.5", -2: "-2", 1e21: "1e+21", 1.5e-7: "1.5e-7", 123456789012: "123456789012",
		0.1: "0.1", 1e-6: "0.000001", math.Inf(1): "Infinity", math.NaN(): "NaN"}
	for f, want := range strs {
		if got := jsString(f); got != want {
			t.Errorf("String(%v) = %q, want %q", f, got, want)
		}
	}
	if got := jsString([]any{1, nil, "a"}); got != "1,,a" {
		t.Errorf("String(list) = %q", got)
	}
	floats := map[string]float64{"12.5abc": 12.5, "  -3e2x": -300, "Infinityx": math.Inf(1), ".5.5": 0.5}
	for s, want := range floats {
		if got := jsParseFloat(s); got != want {
			t.Errorf("parseFloat(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"", "x1", "e5", "."} {
		if got := jsParseFloat(s); !math.IsNaN(got) {
			t.Errorf("parseFloat(%q) = %v, want NaN", s, got)
		}
	}
}

func TestParseJSDate(t *testing.T) {
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ok := map[string]time.Time{
		"2026":                          time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-03":                       time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		"2026-03-04":                    time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
		"2026-03-04T05:06":              base.Add(-7 * time.Second),
		"2026-03-04T05:06:07Z":          base,
		"2026-03-04t05:06:07z":          base,
		"2026-03-04 05:06:07":           base,
		"2026-03-04T05:06:07.1234Z":     base.Add(123 * time.Millisecond),
		"2026-03-04T07:06:07+02:00":     base,
		"2026-03-04T03:06:07-0200":      base,
		"2026-03-04T24:00:00Z":          time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC),
		"+002026-03-04T05:06:07Z":       base,
		"2024-02-29":                    time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"-000001-01-01T00:00:00Z":       time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		"1969-12-31T23:59:59.999Z":      time.UnixMilli(-1).UTC(),
		"2026-03-04T05:06:07.000+00:00": base,
	}
	for s, want := range ok {
		got, valid := parseJSDate(s)
		if !valid || got != want.UnixMilli() {
			t.Errorf("parseJSDate(%q) = %d %v, want %d", s, got, valid, want.UnixMilli())
		}
	}
	for _, s := range []string{"", "2026-02-30", "2026-13-01", "2026-03-04T24:00:01Z", "2026-03-04T05:60", "20260304T050607Z",
		"2026-03-04T05", "2026-03-04T05:06:07+02", "-000000-01-01", "soon", "2026-3-4", "2026-03-04T05:06:07 Z"} {
		if got, valid := parseJSDate(s); valid {
			t.Errorf("parseJSDate(%q) = %d, want invalid", s, got)
		}
	}
	if got, valid := parseDMY("2.1.2026 13:05"); !valid || got != time.Date(2026, 1, 2, 13, 5, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("parseDMY = %d %v", got, valid)
	}
	if _, valid := parseDMY("31.2.2026"); valid {
		t.Error("parseDMY accepted 31.2.2026")
	}
}

func TestLikePatterns(t *testing.T) {
	cases := []struct {
		pattern, s string
		fold, want bool
	}{
		{"a%", "abc", false, true},
		{"a%", "bac", false, false},
		{"%", "", false, true},
		{"_", "é", false, true},
		{"_", "", false, false},
		{`100\%`, "100%", false, true},
		{`100\%`, "1000", false, false},
		{`a\_b`, "a_b", false, true},
		{`a\_b`, "axb", false, false},
		{`a\\b`, `a\b`, false, true},
		{"a.c", "abc", false, false},
		{"(x)*", "(x)*", false, true},
		{"ÄB%", "äbc", true, true},
		{"line%", "line1\nline2", false, true},
	}
	for _, tc := range cases {
		if got := likeRegexp(tc.pattern, tc.fold).MatchString(tc.s); got != tc.want {
			t.Errorf("%q LIKE %q (fold %v) = %v", tc.s, tc.pattern, tc.fold, got)
		}
	}
}
