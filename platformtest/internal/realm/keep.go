// This file holds what a service that keeps data per realm (the data
// backend's rows, the file service's objects) offers to the platform's
// reconciliation with flockd's configuration at start
// (platformtest.Reconcile): Forgetter, to remove a realm's data when the
// realm goes, and Migrator, to bring the data to an app's changed data
// template, with TemplateChange describing the change.

package realm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// Forgetter is a service that keeps data per realm.
type Forgetter interface {
	// Forget removes everything the service keeps for the realm: its app,
	// its project or its last installation left the configuration. It is
	// called after the realm left the registry, without the registry's
	// lock; a realm the service never saw is no error.
	Forget(realm string) error
}

// Migrator is a service whose kept data follows an app's data template.
type Migrator interface {
	// Migrate brings what the service keeps for the realm to the app's
	// changed data template: tables, columns and namespaces are added;
	// removed ones (and retyped columns) are dropped with their data,
	// which the reconciliation allows only when told to (ch.Drops()). It
	// is called after the registry holds the new template, without the
	// registry's lock, for every realm of the app.
	Migrate(realm string, ch TemplateChange) error
}

// TemplateChange is how an app's data template changed.
type TemplateChange struct {
	Old, New *template.DataTemplate // nil: no tables

	AddedTables    []string
	RemovedTables  []string
	AddedColumns   []ColumnChange
	RemovedColumns []ColumnChange
	RetypedColumns []ColumnChange // a new type, or secret turned on or off

	AddedNamespaces   []string
	RemovedNamespaces []string
}

// ColumnChange names a column of a table, with its type before and after
// (or only one of them when added or removed).
type ColumnChange struct {
	Table, Column string
	From, To      string // "numeric", "string secret"…
}

// DiffTemplates describes the change from old to new (either may be nil).
func DiffTemplates(old, new *template.DataTemplate) TemplateChange {
	ch := TemplateChange{Old: old, New: new}
	oldTables, newTables := tablesOf(old), tablesOf(new)
	for _, t := range tableNames(new) {
		ot, ok := oldTables[t]
		if !ok {
			ch.AddedTables = append(ch.AddedTables, t)
			continue
		}
		nt := newTables[t]
		for _, c := range nt.Columns {
			i := slices.IndexFunc(ot.Columns, func(o template.Column) bool { return o.ID == c.ID })
			switch {
			case i < 0:
				ch.AddedColumns = append(ch.AddedColumns, ColumnChange{Table: t, Column: c.ID, To: columnType(c)})
			case columnType(ot.Columns[i]) != columnType(c):
				ch.RetypedColumns = append(ch.RetypedColumns, ColumnChange{Table: t, Column: c.ID, From: columnType(ot.Columns[i]), To: columnType(c)})
			}
		}
		for _, c := range ot.Columns {
			if !slices.ContainsFunc(nt.Columns, func(n template.Column) bool { return n.ID == c.ID }) {
				ch.RemovedColumns = append(ch.RemovedColumns, ColumnChange{Table: t, Column: c.ID, From: columnType(c)})
			}
		}
	}
	for _, t := range tableNames(old) {
		if _, ok := newTables[t]; !ok {
			ch.RemovedTables = append(ch.RemovedTables, t)
		}
	}
	oldNS, newNS := namespaces(old), namespaces(new)
	for _, n := range newNS {
		if !slices.Contains(oldNS, n) {
			ch.AddedNamespaces = append(ch.AddedNamespaces, n)
		}
	}
	for _, n := range oldNS {
		if !slices.Contains(newNS, n) {
			ch.RemovedNamespaces = append(ch.RemovedNamespaces, n)
		}
	}
	return ch
}

// Drops reports whether the change drops kept data: a table, a column or
// a namespace removed, or a column retyped.
func (ch TemplateChange) Drops() bool {
	return len(ch.RemovedTables)+len(ch.RemovedColumns)+len(ch.RetypedColumns)+len(ch.RemovedNamespaces) > 0
}

// Empty reports whether the change leaves the kept data as it is.
func (ch TemplateChange) Empty() bool {
	return !ch.Drops() && len(ch.AddedTables)+len(ch.AddedColumns)+len(ch.AddedNamespaces) == 0
}

// Dropped describes what the change drops, "" when nothing.
func (ch TemplateChange) Dropped() string {
	var parts []string
	for _, t := range ch.RemovedTables {
		parts = append(parts, fmt.Sprintf("table %s removed", t))
	}
	for _, c := range ch.RemovedColumns {
		parts = append(parts, fmt.Sprintf("column %s.%s (%s) removed", c.Table, c.Column, c.From))
	}
	for _, c := range ch.RetypedColumns {
		parts = append(parts, fmt.Sprintf("column %s.%s retyped from %s to %s", c.Table, c.Column, c.From, c.To))
	}
	for _, n := range ch.RemovedNamespaces {
		parts = append(parts, fmt.Sprintf("file namespace %s removed", n))
	}
	return strings.Join(parts, ", ")
}

// Added describes what the change adds, "" when nothing.
func (ch TemplateChange) Added() string {
	var parts []string
	for _, t := range ch.AddedTables {
		parts = append(parts, "table "+t)
	}
	for _, c := range ch.AddedColumns {
		parts = append(parts, fmt.Sprintf("column %s.%s (%s)", c.Table, c.Column, c.To))
	}
	for _, n := range ch.AddedNamespaces {
		parts = append(parts, "file namespace "+n)
	}
	return strings.Join(parts, ", ")
}

func tablesOf(t *template.DataTemplate) map[string]*template.Table {
	out := map[string]*template.Table{}
	if t != nil {
		for i := range t.Tables {
			out[t.Tables[i].Name] = &t.Tables[i]
		}
	}
	return out
}

func tableNames(t *template.DataTemplate) []string {
	var out []string
	if t != nil {
		for _, tb := range t.Tables {
			out = append(out, tb.Name)
		}
	}
	return out
}

// namespaces returns the file namespaces of t: "default" alone without a
// files section.
func namespaces(t *template.DataTemplate) []string { return t.NamespaceNames() }

func columnType(c template.Column) string {
	if c.Secret {
		return string(c.Type) + " secret"
	}
	return string(c.Type)
}
