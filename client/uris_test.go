package client

import (
	"errors"
	"testing"
)

// TestCheckTopic checks the verdicts on URIs, and that the one-pass check
// of ASCII URIs agrees with the check of any text.
func TestCheckTopic(t *testing.T) {
	cases := []struct {
		uri     string
		pattern bool
		ok      bool
	}{
		{"com.example.temp", false, true},
		{"com.example.temp", true, true},
		{"", false, false},
		{"com example", false, false},
		{"com.example\t", false, false},
		{"com.ex#ample", false, false},
		{"\vcom.example", false, false},
		{"com.example\f", false, false},
		{"com.ex\vample", false, true}, // inside, as strings.TrimSpace sees it
		{".com.example", false, false},
		{"com.example.", false, false},
		{"com..example", false, false},
		{"com..example", true, true}, // a wildcard pattern's empty segment
		{".", true, true},
		{"com.exämple", false, true},
		{"com.exämple ", false, false},
		{"com.exämple\u00a0", false, false}, // trailing non-breaking space
		{"com..exämple", false, false},
		{"com.example\x01", false, true},
	}
	for _, c := range cases {
		err := checkTopic("Publish", c.uri, c.pattern)
		if (err == nil) != c.ok {
			t.Errorf("checkTopic(%q, pattern %v) = %v, want ok %v", c.uri, c.pattern, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("checkTopic(%q): %v is not ErrInvalidArgument", c.uri, err)
		}
		if c.uri != "" {
			text := checkTopicText("Publish", c.uri, c.pattern)
			if (text == nil) != (err == nil) || err != nil && err.Error() != text.Error() {
				t.Errorf("checkTopic(%q, pattern %v) = %v, checkTopicText = %v", c.uri, c.pattern, err, text)
			}
		}
	}
}

// FuzzCheckTopic checks that both checks agree on any URI.
func FuzzCheckTopic(f *testing.F) {
	for _, s := range []string{"com.example.temp", "a..b", " a", "a\v", "é.b", "#"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, uri string, pattern bool) {
		if uri == "" {
			return
		}
		fast, text := checkTopic("Publish", uri, pattern), checkTopicText("Publish", uri, pattern)
		if (fast == nil) != (text == nil) || fast != nil && fast.Error() != text.Error() {
			t.Fatalf("checkTopic(%q, %v) = %v, checkTopicText = %v", uri, pattern, fast, text)
		}
	})
}
