// This file turns URIs into label values that do not name devices.

package metrics

import (
	"strings"
	"unicode/utf8"
)

// maxTemplate bounds a templated URI.
const maxTemplate = 120

// Template returns uri with every segment made only of digits (a swarm,
// app or device key: <S>.<D>.<A>.<STAGE>.<name>, append.<S>.<A>.<t>)
// replaced by {n}, cut to 120 bytes: a label value that is the same for
// every device. Other segments are kept: they come from templates and
// code (table and function names). A URI with a device's name or serial
// in a segment of its own still yields a series per device; a Vec's bound
// of series keeps their number bounded.
func Template(uri string) string {
	if !hasDigitSegment(uri) {
		return cut(uri)
	}
	var b strings.Builder
	b.Grow(len(uri) + 8)
	for i, rest := 0, uri; ; i++ {
		seg, after, more := strings.Cut(rest, ".")
		if i > 0 {
			b.WriteByte('.')
		}
		if allDigits(seg) {
			b.WriteString("{n}")
		} else {
			b.WriteString(seg)
		}
		if !more {
			break
		}
		rest = after
	}
	return cut(b.String())
}

// cut cuts s to at most maxTemplate bytes, at a character boundary, and
// replaces invalid UTF-8.
func cut(s string) string {
	if len(s) > maxTemplate {
		i := maxTemplate
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// hasDigitSegment reports whether a dot-separated segment of uri is all
// digits.
func hasDigitSegment(uri string) bool {
	start := 0
	for i := 0; i <= len(uri); i++ {
		if i == len(uri) || uri[i] == '.' {
			if allDigits(uri[start:i]) {
				return true
			}
			start = i + 1
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
