// This file holds checkTopic, the check of a topic or procedure URI made
// before anything is sent.

package client

import (
	"strings"
	"unicode/utf8"
)

// checkTopic validates a topic or procedure URI before anything is sent.
// URIs of ASCII, as nearly all are, are checked in one pass; others by
// checkTopicText.
func checkTopic(op, uri string, pattern bool) error {
	if uri == "" {
		return invalidArg(op, uri, "the URI is empty")
	}
	emptySegment := false
	for i := 0; i < len(uri); i++ {
		switch c := uri[i]; c {
		case ' ', '\t', '\r', '\n', '#':
			return invalidArg(op, uri, "the URI contains whitespace or '#'")
		case '\v', '\f':
			if i == 0 || i == len(uri)-1 {
				return invalidArg(op, uri, "the URI contains whitespace or '#'")
			}
		case '.':
			if i == 0 || i == len(uri)-1 || uri[i-1] == '.' {
				emptySegment = true
			}
		default:
			if c >= utf8.RuneSelf {
				return checkTopicText(op, uri, pattern)
			}
		}
	}
	if emptySegment && !pattern {
		return invalidArg(op, uri, "the URI has an empty segment")
	}
	return nil
}

// checkTopicText is checkTopic for any text.
func checkTopicText(op, uri string, pattern bool) error {
	switch {
	case strings.TrimSpace(uri) != uri || strings.ContainsAny(uri, " \t\r\n#"):
		return invalidArg(op, uri, "the URI contains whitespace or '#'")
	case !pattern && (strings.HasPrefix(uri, ".") || strings.HasSuffix(uri, ".") || strings.Contains(uri, "..")):
		return invalidArg(op, uri, "the URI has an empty segment")
	}
	return nil
}
