package template

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Transform is one entry of data.transforms: an SQL view over the app's
// tables, read like a table with the transform rules of docs/fake.md.
type Transform struct {
	// Name is the tablename of the view.
	Name string
	// Description is free text.
	Description string
	// Private transforms are not readable by consuming apps.
	Private bool
	// Materialize stores the view's result instead of computing it on read.
	Materialize bool
	// Schedule is the refresh schedule of a materialized view, a cron
	// expression of 5 or 6 fields (see CheckCron); empty when absent.
	Schedule string
	// SQL is the view's query. The fake platform cannot run it: a
	// transform's rows are supplied by tests.
	SQL string
	// Columns are the view's declared columns; filters may use only these.
	Columns []Column
}

// Column returns the declared column with that id.
func (t *Transform) Column(id string) (*Column, bool) {
	return findColumn(t.Columns, id)
}

var transformKeys = []string{"tablename", "description", "private", "materialize", "schedule", "sql", "columns"}

// transform walks one transform, like table.
func (c *checker) transform(n *yaml.Node, path string) (Transform, *yaml.Node, bool) {
	var t Transform
	m := c.mapping(n, path, "a transform mapping with tablename and sql")
	if m == nil {
		return t, nil, false
	}
	c.unknownKeys(m, transformKeys)
	nameNode, ok := c.tableName(m)
	if ok {
		t.Name = nameNode.Value
	}
	c.optText(m, "description", &t.Description)
	c.optBool(m, "private", &t.Private)
	c.optBool(m, "materialize", &t.Materialize)
	if v := m.value("schedule"); v != nil {
		p := keyPath(path, "schedule")
		if s, sok := c.text(v, p); sok {
			if err := CheckCron(s); err != nil {
				c.errorf(v, p, "%v", err)
			} else {
				t.Schedule = s
			}
		}
	}
	if v := c.required(m, "sql", "the SELECT statement of the view"); v != nil {
		p := keyPath(path, "sql")
		if s, sok := c.text(v, p); sok {
			if strings.TrimSpace(s) == "" {
				c.errorf(v, p, "sql is empty; write the SELECT statement of the view")
			}
			t.SQL = s
		}
	}
	if v := m.value("columns"); v != nil {
		t.Columns, _ = c.columns(v, keyPath(path, "columns"))
	}
	return t, nameNode, ok
}
