// This file holds the key rules of the file service (fleetfiles
// NormalizeKey, docs/wire.md §7.15): what a key, and a list prefix, must
// look like. It serves no URI.
//
// The real service normalises keys to NFC before it checks them, so two
// spellings of "é" name one object. The fake cannot: Unicode
// normalisation needs tables that neither the standard library nor the
// project's dependencies provide (golang.org/x/text is not among them).
// It checks every other rule and keeps keys byte for byte as sent, so a
// key must arrive in NFC to name the object the real service would name;
// a decomposed spelling is a different object here. Keys are refused with
// INVALID_KEY (the code the service declares; fleetfiles v0.2.0 reports
// INTERNAL).
//
// A list prefix follows the same rules, except that the fake accepts one
// trailing "/" (a folder: "photos/"), which fleetfiles v0.2.0 refuses;
// the SDK never sends one from Iter.

package fleetfiles

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key limits.
const (
	maxKeyBytes     = 900
	maxKeySegments  = 20
	maxSegmentBytes = 255
	sysPrefix       = "_sys/"
	forbiddenChars  = `\:*?"<>|^~`
)

// checkKey returns what is wrong with key, or "".
func checkKey(key string) string {
	switch {
	case key == "":
		return "key is empty"
	case !utf8.ValidString(key):
		return "key is not valid UTF-8"
	case len(key) > maxKeyBytes:
		return fmt.Sprintf("key is %d bytes long; at most %d", len(key), maxKeyBytes)
	case strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/"):
		return "key must not start or end with /"
	case strings.HasPrefix(key, sysPrefix):
		return "keys under _sys/ are reserved for the platform"
	}
	for _, r := range key {
		switch {
		case unicode.Is(unicode.Cc, r):
			return fmt.Sprintf("key contains the control character %U", r)
		case unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("key contains the invisible format character %U", r)
		case strings.ContainsRune(forbiddenChars, r):
			return fmt.Sprintf("key contains %q; none of %s are allowed", r, forbiddenChars)
		}
	}
	segs := strings.Split(key, "/")
	if len(segs) > maxKeySegments {
		return fmt.Sprintf("key has %d segments; at most %d", len(segs), maxKeySegments)
	}
	for _, s := range segs {
		switch {
		case s == "":
			return "key has an empty segment (//)"
		case s == "." || s == "..":
			return fmt.Sprintf("key has a %q segment", s)
		case len(s) > maxSegmentBytes:
			return fmt.Sprintf("a key segment is %d bytes long; at most %d", len(s), maxSegmentBytes)
		case strings.HasSuffix(s, "."):
			return fmt.Sprintf("key segment %q ends with a dot", s)
		case strings.HasPrefix(s, " ") || strings.HasSuffix(s, " "):
			return fmt.Sprintf("key segment %q starts or ends with a space", s)
		}
	}
	return ""
}

// checkPrefix returns what is wrong with a list prefix, or "". The empty
// prefix lists everything.
func checkPrefix(prefix string) string {
	if prefix == "" {
		return ""
	}
	p := strings.TrimSuffix(prefix, "/")
	switch {
	case p == "":
		return "prefix must not be only /"
	case strings.HasPrefix(prefix, sysPrefix):
		return "keys under _sys/ are reserved for the platform"
	}
	if msg := checkKey(p); msg != "" {
		return "invalid prefix " + strconv.Quote(prefix) + ": " + msg
	}
	return ""
}
