package store

import (
	"regexp"
	"testing"
)

// jsDecimalOracle is the grammar isJSDecimal scans, as a regular
// expression.
var jsDecimalOracle = regexp.MustCompile(`^[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$`)

// jsDecimalSamples are texts on both sides of every rule of the grammar.
var jsDecimalSamples = []string{"", "0", "7", "007", "+7", "-7", "1.", ".5", "1.5", "+.5", "-1.e3", "1e", "1e+", "1e+5", "1E-05",
	".", "+", "-", "e5", ".e5", "1.5.5", "Infinity", "-Infinity", "+Infinity", "Infinityx", "infinity", "1 ", " 1", "0x10",
	"1_000", "１", "12345678901234567890", "--1", "+-1", "1e5e5", "1.5e", ".5e-1"}

// TestIsJSDecimalAgainstOracle checks isJSDecimal against the regular
// expression it replaced.
func TestIsJSDecimalAgainstOracle(t *testing.T) {
	for _, s := range jsDecimalSamples {
		if got, want := isJSDecimal(s), jsDecimalOracle.MatchString(s); got != want {
			t.Errorf("isJSDecimal(%q) = %v, the grammar says %v", s, got, want)
		}
	}
}

// FuzzIsJSDecimal checks isJSDecimal against the regular expression on
// any text.
func FuzzIsJSDecimal(f *testing.F) {
	for _, s := range jsDecimalSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isJSDecimal(s), jsDecimalOracle.MatchString(s); got != want {
			t.Errorf("isJSDecimal(%q) = %v, the grammar says %v", s, got, want)
		}
	})
}
