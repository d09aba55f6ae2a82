// This file holds the checks of table names before anything is sent.

package client

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTableName is the longest table name a write accepts.
const maxTableName = 100

// checkWriteTable validates a table name for writes (docs/wire.md §7.3): trimmed,
// non-empty, at most 100 characters of Unicode letters, digits, '-' and '_',
// with at least one letter or digit. It returns the trimmed name.
func checkWriteTable(op, table string) (string, error) {
	t := strings.TrimSpace(table)
	if t == "" {
		return "", invalidArg(op, "table", "the table name is empty")
	}
	if n := utf8.RuneCountInString(t); n > maxTableName {
		return "", invalidArg(op, t, "the table name has %d characters; at most %d are allowed", n, maxTableName)
	}
	alnum := false
	for _, r := range t {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			alnum = true
		case r == '-' || r == '_':
		default:
			return "", invalidArg(op, t, "the table name may only hold letters, digits, '-' and '_' (found %q)", r)
		}
	}
	if !alnum {
		return "", invalidArg(op, t, "the table name needs at least one letter or digit")
	}
	return t, nil
}

// checkReadTable validates a table name for reads: non-empty, without
// surrounding whitespace.
func checkReadTable(op, table string) error {
	switch {
	case table == "":
		return invalidArg(op, "table", "the table name is empty")
	case strings.TrimSpace(table) != table:
		return invalidArg(op, table, "the table name has surrounding whitespace")
	}
	return checkTopic(op, table, false)
}
