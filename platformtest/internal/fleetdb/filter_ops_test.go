package fleetdb

import "testing"

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
