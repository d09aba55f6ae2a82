// This file holds CheckRowIDColumn: whether a table can carry the row ids
// of an outbox (package outbox, WithIDColumn), checked where the templates
// are parsed rather than on the device.

package template

import (
	"errors"
	"fmt"
)

// ErrRowIDColumn reports a table that cannot carry an outbox's row ids in
// the column named; CheckRowIDColumn wraps it with the reason.
var ErrRowIDColumn = errors.New("template: no column fit for row ids")

// CheckRowIDColumn reports whether the data template declares table with a
// column fit to carry the row ids of package outbox: a string column,
// not secret, read at its default path (args[0].<column>), where the
// outbox's sender writes it. A nil error means outbox.WithIDColumn(column)
// gives exactly-once delivery to that table. Run it in a test of the app
// or in the tool that checks its templates before a release:
//
//	tpl, _, err := template.ParseData(src) // .ironflock/data-template.yml
//	err = tpl.CheckRowIDColumn("readings", "row_id")
func (t *DataTemplate) CheckRowIDColumn(table, column string) error {
	tb, ok := t.Table(table)
	if !ok || table == ErrorLogsName {
		return fmt.Errorf("%w: the data template declares no table %q", ErrRowIDColumn, table)
	}
	col, ok := tb.Column(column)
	switch {
	case !ok:
		return fmt.Errorf("%w: table %q has no column %q", ErrRowIDColumn, table, column)
	case col.Type != TypeString:
		return fmt.Errorf("%w: column %q of table %q is %s; row ids need a string column", ErrRowIDColumn, column, table, col.Type)
	case col.Path != DefaultPath(column):
		return fmt.Errorf("%w: column %q of table %q reads %s; row ids are written at %s", ErrRowIDColumn, column, table, col.Path, DefaultPath(column))
	case col.Secret:
		return fmt.Errorf("%w: column %q of table %q is secret; the history cannot be searched for row ids in it", ErrRowIDColumn, column, table)
	}
	return nil
}
