package template

import (
	"fmt"
	"regexp"
	"strings"
)

// ErrorLogsName is the name of the system table every data backend has
// (package template). Templates may not declare a table or transform of that name.
const ErrorLogsName = "error-logs"

// maxIdentifierBytes is the longest table, transform or column name:
// PostgreSQL truncates longer identifiers.
const maxIdentifierBytes = 63

// identPattern is the pattern of table, transform and column names.
var identPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// sqlReserved holds the PostgreSQL key words that are reserved, including
// those reserved but allowed as function or type names (PostgreSQL manual,
// appendix "SQL Key Words"). A table named like one of them would need
// quoting in every query.
var sqlReserved = toSet(`all analyse analyze and any array as asc asymmetric authorization binary both
case cast check collate collation column concurrently constraint create cross current_catalog
current_date current_role current_schema current_time current_timestamp current_user default
deferrable desc distinct do else end except false fetch for foreign freeze from full grant group
having ilike in initially inner intersect into is isnull join lateral leading left like limit
localtime localtimestamp natural not notnull null offset on only or order outer overlaps placing
primary references returning right select session_user similar some symmetric system_user table
tablesample then to trailing true union unique user using variadic verbose when where window with`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// isSQLReserved reports whether name is a reserved PostgreSQL key word
// (compared case-insensitively).
func isSQLReserved(name string) bool {
	return sqlReserved[strings.ToLower(name)]
}

// checkTableName returns what is wrong with a table or transform name, or
// "" when it follows the rules of package template.
func checkTableName(name string) string {
	switch {
	case name == ErrorLogsName:
		return fmt.Sprintf("%q is the reserved system table; choose another name", name)
	case !identPattern.MatchString(name):
		return fmt.Sprintf("invalid name %q; allowed: a lower-case letter, then lower-case letters, digits and _ (^[a-z][a-z0-9_]*$)", name)
	case len(name) > maxIdentifierBytes:
		return fmt.Sprintf("name is %d bytes long; allowed: at most %d", len(name), maxIdentifierBytes)
	case isSQLReserved(name):
		return fmt.Sprintf("%q is a reserved SQL word; choose another name", name)
	}
	return ""
}

// checkColumnID returns what is wrong with a column id, or "".
func checkColumnID(id string) string {
	switch {
	case id == "device_key" || id == "latest_flag" || id == "authid":
		return fmt.Sprintf("%q is an implicit column the platform adds; choose another id (reserved: device_key, latest_flag, authid)", id)
	case !identPattern.MatchString(id):
		return fmt.Sprintf("invalid id %q; allowed: a lower-case letter, then lower-case letters, digits and _ (^[a-z][a-z0-9_]*$)", id)
	case len(id) > maxIdentifierBytes:
		return fmt.Sprintf("id is %d bytes long; allowed: at most %d", len(id), maxIdentifierBytes)
	}
	return ""
}
