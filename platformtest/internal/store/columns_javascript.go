// This file holds JavaScript's conversions as the data backend (a
// JavaScript service) applies them: Number(), String(), parseFloat() and
// number formatting. It serves no URI.

package store

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// JSWhitespace is what JavaScript's String.prototype.trim removes.
const JSWhitespace = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

var (
	jsFloatPf = regexp.MustCompile(`^[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)`)
	// IntText is an integer text.
	IntText = regexp.MustCompile(`^[+-]?[0-9]+$`)
)

// IsNumber reports whether v is a wire number (int64, uint64 or float64
// after normalisation; int for values built in Go).
func IsNumber(v any) bool {
	switch v.(type) {
	case int64, uint64, float64, int:
		return true
	}
	return false
}

// NumberOf returns a wire number as float64.
func NumberOf(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case int:
		return float64(x)
	}
	return math.NaN()
}

// JSNumber converts a defined value as JavaScript's Number() does; NaN
// when it is not a number.
func JSNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case string:
		return JSNumberText(x)
	case []byte:
		return JSNumberText(string(x))
	case time.Time:
		return float64(x.UnixMilli())
	case []any:
		switch len(x) {
		case 0:
			return 0
		case 1:
			return JSNumberText(JSString(x[0]))
		}
		return math.NaN()
	}
	if IsNumber(v) {
		return NumberOf(v)
	}
	return math.NaN()
}

func JSNumberText(s string) float64 {
	s = strings.Trim(s, JSWhitespace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			n, err := strconv.ParseUint(s[2:], base, 64)
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}
	}
	if !isJSDecimal(s) {
		return math.NaN()
	}
	return parseDecimal(s)
}

// isJSDecimal reports whether s is a decimal number as Number() reads
// one: ^[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$
// (a scan rather than the expression: every append reads its DEVICE_KEY
// here).
func isJSDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if s[i:] == "Infinity" {
		return true
	}
	whole := digitRun(s, i)
	i += whole
	if i < len(s) && s[i] == '.' {
		i++
		frac := digitRun(s, i)
		if whole == 0 && frac == 0 {
			return false
		}
		i += frac
	} else if whole == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := digitRun(s, i)
		if exp == 0 {
			return false
		}
		i += exp
	}
	return i == len(s)
}

// digitRun returns how many ASCII digits follow in s from i.
func digitRun(s string, i int) int {
	n := 0
	for i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '9' {
		n++
	}
	return n
}

func parseDecimal(s string) float64 {
	switch strings.TrimLeft(s, "+") {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && f == 0 {
		return math.NaN()
	}
	return f // ±Inf on overflow, as JavaScript
}

// JSParseFloat is JavaScript's parseFloat: the longest decimal prefix
// after leading whitespace, NaN when there is none.
func JSParseFloat(s string) float64 {
	m := jsFloatPf.FindString(strings.TrimLeft(s, JSWhitespace))
	if m == "" {
		return math.NaN()
	}
	return parseDecimal(m)
}

// JSString converts a value as JavaScript's String() does.
func JSString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case []byte:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return JSFormatNumber(x)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if e != nil {
				parts[i] = JSString(e)
			}
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return "[object Object]"
	}
	return ""
}

// JSFormatNumber formats a number as JavaScript's Number.prototype.toString.
func JSFormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if a := math.Abs(f); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + sign + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
