package fleetfiles

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckKey(t *testing.T) {
	valid := []string{
		"a", "a/b/c.txt", "_sys", "_system/x", "tëmperatur/ü.json", "a b/c d", "a.b/c-d_e+f=g!h@i",
		strings.Repeat("a", 255), strings.Repeat("a/", 19) + "a", "x%2Fy", "e\u0301", // decomposed é is kept as sent
	}
	for _, k := range valid {
		if msg := checkKey(k); msg != "" {
			t.Errorf("checkKey(%q) = %q, want valid", k, msg)
		}
	}
	invalid := []string{
		"", "/a", "a/", "a//b", "./a", "a/../b", "a./b", "a.", " a", "a ", "a/ b", "_sys/x",
		"a\tb", "a\nb", "a\x7fb", "a\u200bb", "\ufeffa", "a\u00adb", "a\u202eb",
		`a\b`, "a:b", "a*b", "a?b", `a"b`, "a<b", "a>b", "a|b", "a^b", "a~b",
		strings.Repeat("a", 256), strings.Repeat("a/", 20) + "a", strings.Repeat("ab/", 300) + "c",
		"a\xffb",
	}
	for _, k := range invalid {
		if msg := checkKey(k); msg == "" {
			t.Errorf("checkKey(%q) is valid, want a refusal", k)
		}
	}
}

func TestCheckPrefix(t *testing.T) {
	for p, ok := range map[string]bool{"": true, "photos": true, "photos/": true, "photos/20": true, "/": false, "a//": false, "a//b": false, "_sys/": false} {
		if got := checkPrefix(p) == ""; got != ok {
			t.Errorf("checkPrefix(%q) valid = %v, want %v (%s)", p, got, ok, checkPrefix(p))
		}
	}
}

// FuzzCheckKey: the key rules never panic, and a valid key is valid
// UTF-8, within the limits, without empty segments.
func FuzzCheckKey(f *testing.F) {
	for _, s := range []string{"a/b", "", "a//b", "_sys/x", "é", "a\u200b", strings.Repeat("x/", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		if checkKey(key) != "" {
			return
		}
		if !utf8.ValidString(key) || len(key) > maxKeyBytes || strings.Contains(key, "//") ||
			strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") || strings.Count(key, "/") >= maxKeySegments {
			t.Fatalf("checkKey accepted %q", key)
		}
		if msg := checkPrefix(key + "/"); msg != "" && key != "_sys" {
			t.Fatalf("the folder of valid key %q is refused: %s", key, msg)
		}
	})
}
