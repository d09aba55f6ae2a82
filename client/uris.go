// This file holds checkTopic, the check of a topic or procedure URI made
// before anything is sent.

package client

import "strings"

// checkTopic validates a topic or procedure URI before anything is sent.
func checkTopic(op, uri string, pattern bool) error {
	switch {
	case uri == "":
		return invalidArg(op, uri, "the URI is empty")
	case strings.TrimSpace(uri) != uri || strings.ContainsAny(uri, " \t\r\n#"):
		return invalidArg(op, uri, "the URI contains whitespace or '#'")
	case !pattern && (strings.HasPrefix(uri, ".") || strings.HasSuffix(uri, ".") || strings.Contains(uri, "..")):
		return invalidArg(op, uri, "the URI has an empty segment")
	}
	return nil
}
