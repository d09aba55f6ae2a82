// This file holds the name rules Append applies before storing a row:
// what the sender would otherwise learn from the backend only after the
// row was queued.

package outbox

import (
	"fmt"
	"strings"
	"unicode"
)

// maxNameLen is the longest table name the platform takes.
const maxNameLen = 100

// checkName applies the platform's rule for table names (docs/wire.md
// §7.3) to a table or column name: trimmed, not empty, at most 100
// characters, only letters, digits, '-' and '_', at least one letter or
// digit. An empty name passes when optional.
func checkName(what, name string, optional bool) error {
	if name == "" && optional {
		return nil
	}
	bad := func(why string) error {
		return reason(ErrInvalidArgument, "%s name %q %s", what, name, why)
	}
	switch {
	case name == "":
		return bad("is empty")
	case strings.TrimSpace(name) != name:
		return bad("has surrounding spaces")
	case len([]rune(name)) > maxNameLen:
		return bad(fmt.Sprintf("is longer than %d characters", maxNameLen))
	}
	alnum := false
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			alnum = true
		case r == '-' || r == '_':
		default:
			return bad(fmt.Sprintf("holds %q; only letters, digits, '-' and '_' are allowed", r))
		}
	}
	if !alnum {
		return bad("has no letter or digit")
	}
	return nil
}
