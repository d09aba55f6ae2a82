// This file holds CheckTemplate and the name rules Append applies before
// storing a row: what the sender would otherwise learn from the backend
// only after the row was queued.

package outbox

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/flockgo/ironflock/template"
)

// CheckTemplate reports whether the data template declares table with a
// column idColumn fit to carry the outbox's row ids: a string column read
// at its default path (args[0].<idColumn>), where the row the sender
// writes puts it. A nil error means WithIDColumn(idColumn) gives exactly
// once delivery to that table. Run it in a test or at start:
//
//	tpl, _, err := template.ParseData(src) // .ironflock/data-template.yml
//	err = outbox.CheckTemplate(tpl, "readings", "row_id")
func CheckTemplate(tpl *template.DataTemplate, table, idColumn string) error {
	const op = "CheckTemplate"
	t, ok := tpl.Table(table)
	if !ok || table == template.ErrorLogsName {
		return opErr(op, table, reason(ErrInvalidArgument, "the data template declares no table %q", table))
	}
	col, ok := t.Column(idColumn)
	switch {
	case !ok:
		return opErr(op, table, reason(ErrInvalidArgument, "table %q has no column %q for the row ids", table, idColumn))
	case col.Type != template.TypeString:
		return opErr(op, table, reason(ErrInvalidArgument, "column %q is %s; row ids need a string column", idColumn, col.Type))
	case col.Path != template.DefaultPath(idColumn):
		return opErr(op, table, reason(ErrInvalidArgument, "column %q reads %s; row ids are written at %s", idColumn, col.Path, template.DefaultPath(idColumn)))
	case col.Secret:
		return opErr(op, table, reason(ErrInvalidArgument, "column %q is secret; the history cannot be searched for row ids in it", idColumn))
	}
	return nil
}

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
