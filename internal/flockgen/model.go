// This file holds the model of the generated file: the tables and
// transforms (the app's own and the consumed apps'), their columns with
// Go names and types, and where each column is written.

package flockgen

import (
	"fmt"
	"slices"

	"github.com/flockgo/ironflock/template"
)

// tableKind says which handle a table gets.
type tableKind int

const (
	ownTable    tableKind = iota // the app's table: typed.Table
	ownView                      // the app's transform: typed.View
	sharedTable                  // a consumed app's table: typed.Shared
	sharedView                   // a consumed app's transform: typed.SharedView
)

func (k tableKind) transform() bool { return k == ownView || k == sharedView }
func (k tableKind) shared() bool    { return k == sharedTable || k == sharedView }

// table is one table or transform of the file.
type table struct {
	id     string // the tablename
	base   string // Go base name: Readings, or WeatherReadings for a consumed app
	kind   tableKind
	desc   string
	entity []string
	cols   []*column
	noBulk string     // why the rows cannot be written in bulk
	paths  [][]string // the write paths of columns written with Message.Set
	app    *consumedApp
	secret bool // has secret columns (own tables)
	where  []any
	src    source
}

// writeKind says how a column is written.
type writeKind int

const (
	writeNone writeKind = iota // read only
	writeFlat                  // row[key] = v: a key of args[0]
	writeSet                   // Message.Set(path, v)
)

// column is one column of a table, declared or implicit.
type column struct {
	id, field string
	name      string
	desc      string
	typ       template.DataType
	secret    bool
	implicit  bool // device_key, authid
	required  bool // not a pointer: tsp of a table
	path      string
	keys      []string
	write     writeKind
	flatKey   string
	pathIndex int
	readOnly  string // why the column is not written, for its comment
}

// consumedApp is a consumed app with its shared tables.
type consumedApp struct {
	name   string // as the data template writes it
	base   string // Go base name: Weather
	tables []*table
}

// goType returns the column's field type.
func (c *column) goType() string {
	switch {
	case c.secret:
		return "secrets.Value"
	case c.typ == template.TypeJSON:
		return "json.RawMessage"
	}
	t := scalarType(c.typ)
	if c.required {
		return t
	}
	return "*" + t
}

// scalarType is the Go type of a data type's values.
func scalarType(t template.DataType) string {
	switch t {
	case template.TypeNumeric:
		return "float64"
	case template.TypeBigint:
		return "int64"
	case template.TypeTimestamp:
		return "time.Time"
	case template.TypeBoolean:
		return "bool"
	case template.TypeJSON:
		return "json.RawMessage"
	}
	return "string"
}

// columnType returns the typed column type of the column for row type r,
// and the call that makes it.
func (c *column) columnType(r string) (typ, ctor string) {
	switch {
	case c.secret:
		return "typed.SecretColumn[" + r + "]", "typed.NewSecretColumn[" + r + "]"
	}
	switch c.typ {
	case template.TypeNumeric:
		return "typed.NumberColumn[" + r + ", float64]", "typed.NewNumberColumn[" + r + ", float64]"
	case template.TypeBigint:
		return "typed.NumberColumn[" + r + ", int64]", "typed.NewNumberColumn[" + r + ", int64]"
	case template.TypeTimestamp:
		return "typed.TimeColumn[" + r + "]", "typed.NewTimeColumn[" + r + "]"
	case template.TypeBoolean:
		return "typed.BoolColumn[" + r + "]", "typed.NewBoolColumn[" + r + "]"
	case template.TypeJSON:
		return "typed.JSONColumn[" + r + "]", "typed.NewJSONColumn[" + r + "]"
	}
	return "typed.StringColumn[" + r + "]", "typed.NewStringColumn[" + r + "]"
}

// newTable builds the model of a table or transform. where locates it in
// src (for messages). Secret columns of another app's tables are left
// out: a consumer never sees their values.
func (g *gen) newTable(id, base, desc string, kind tableKind, entity []string, cols []template.Column, src source, where ...any) *table {
	t := &table{id: id, base: base, kind: kind, desc: desc, entity: entity, src: src, where: where}
	fields := newScope("the fields of " + t.rowType())
	for i, c := range cols {
		if c.Secret && kind.shared() {
			continue
		}
		col := &column{id: c.ID, name: c.Name, desc: c.Description, typ: c.Type, secret: c.Secret, path: c.Path}
		col.required = c.ID == "tsp" && !kind.transform()
		col.keys, _ = template.PathKeys(c.Path)
		name, ok := GoName(c.ID)
		if !ok {
			g.problem(src.at(append(where, "columns", i, "id")...), "%s: column id %q has no letter or digit to make a Go name of", keyPath(append(where, "columns", i, "id")...), c.ID)
		}
		g.addField(t, fields, col, name, "column "+c.ID, append(where, "columns", i, "id")...)
		t.cols = append(t.cols, col)
		t.secret = t.secret || (c.Secret && kind == ownTable)
	}
	if !kind.transform() {
		tb := template.Table{Name: id}
		for _, c := range tb.ImplicitColumns() {
			col := &column{id: c.ID, name: c.Name, desc: c.Description, typ: c.Type, implicit: true, required: true,
				readOnly: "set by the platform"}
			g.addField(t, fields, col, implicitFields[c.ID], "the implicit column "+c.ID, append(where, "tablename")...)
			t.cols = append(t.cols, col)
		}
	}
	if kind == ownTable {
		t.planWrites()
	}
	return t
}

// implicitFields are the field names of the columns every table has.
var implicitFields = map[string]string{"device_key": "DeviceKey", "authid": "AuthID"}

// addField gives col the field name in scope ("" when it has none).
func (g *gen) addField(t *table, s *scope, col *column, name, owner string, where ...any) {
	if name == "" {
		return
	}
	col.field = name
	if err := s.add(name, owner); err != nil {
		g.problem(t.src.at(where...), "%s: %v", keyPath(where...), err)
	}
}

// planWrites decides where each column of an own table is written: a key
// of the row object (args[0].key), elsewhere through Message.Set, or not
// at all (details, which the router fills; a path holding another
// column's path; a path written by an earlier column). It sets noBulk
// when a column sits where a bulk write cannot put it.
func (t *table) planWrites() {
	var written []*column
	for _, c := range t.cols {
		if c.implicit {
			continue
		}
		switch {
		case c.keys[0] == "details":
			c.readOnly = "the router fills details, a writer cannot"
			continue
		case len(c.keys) < 2:
			c.readOnly = "its path is the whole " + c.path + " of the message"
			continue
		}
		if other := t.under(c); other != nil {
			c.readOnly = fmt.Sprintf("its path %s holds column %s (%s); the platform stores that object here", c.path, other.id, other.path)
			continue
		}
		if prev := samePath(written, c); prev != nil {
			c.readOnly = fmt.Sprintf("it reads the value column %s writes (path %s)", prev.id, c.path)
			continue
		}
		written = append(written, c)
		if c.keys[0] == "args" && len(c.keys) == 3 && c.keys[1] == "0" {
			c.write, c.flatKey = writeFlat, c.keys[2]
			continue
		}
		c.write, c.pathIndex = writeSet, len(t.paths)
		t.paths = append(t.paths, c.keys)
		switch {
		case c.keys[0] == "args" && c.keys[1] != "0" && t.noBulk == "":
			t.noBulk = fmt.Sprintf("column %s is written at %s, and a bulk write carries only args[0]", c.id, c.path)
		case c.keys[0] == "args" && len(c.keys) == 2 && c.typ != template.TypeJSON && t.noBulk == "":
			t.noBulk = fmt.Sprintf("column %s is the whole args[0], and a bulk write needs a row object there", c.id)
		}
	}
}

// under returns a column whose path runs through c's path.
func (t *table) under(c *column) *column {
	for _, o := range t.cols {
		if o != c && !o.implicit && len(o.keys) > len(c.keys) && slices.Equal(o.keys[:len(c.keys)], c.keys) {
			return o
		}
	}
	return nil
}

func samePath(cols []*column, c *column) *column {
	for _, o := range cols {
		if slices.Equal(o.keys, c.keys) {
			return o
		}
	}
	return nil
}

// Names derived from a table's base name.
func (t *table) rowType() string    { return t.base + "Row" }
func (t *table) queryType() string  { return t.base + "Query" }
func (t *table) filterType() string { return t.base + "Filter" }
func (t *table) eventType() string  { return t.base + "Event" }
func (t *table) seriesType() string { return t.base + "SeriesQuery" }
func (t *table) latestFunc() string { return t.base + "Latest" }
func (t *table) ctorFunc() string   { return "New" + t.base }
func (t *table) schemaVar() string  { return "schema" + t.base }
func (t *table) encodeFunc() string { return "encode" + t.base }
func (t *table) decodeFunc() string { return "decode" + t.base }
func (t *table) nullsType() string  { return "nulls" + t.base }
func (t *table) pathsVar() string   { return "writePaths" + t.base }
func (t *table) handleType() string {
	if t.kind == ownView {
		return t.base + "View"
	}
	return t.base + "Table"
}

// what names the table in messages.
func (t *table) what() string {
	kind := "table"
	if t.kind.transform() {
		kind = "transform"
	}
	if t.app != nil {
		return fmt.Sprintf("%s %s of app %s", kind, t.id, t.app.name)
	}
	return kind + " " + t.id
}

// exported returns the package-level names the table takes, with what
// each stands for.
func (t *table) exported() [][2]string {
	w := t.what()
	out := [][2]string{
		{t.base, "the columns of " + w},
		{t.rowType(), "the row type of " + w},
		{t.queryType(), "the query type of " + w},
		{t.filterType(), "the filter type of " + w},
		{t.eventType(), "the event type of " + w},
	}
	if !t.kind.shared() {
		out = append(out, [2]string{t.handleType(), "the handle type of " + w}, [2]string{t.ctorFunc(), "the constructor of " + w})
	}
	if !t.kind.transform() {
		out = append(out, [2]string{t.seriesType(), "the series query type of " + w})
	}
	if len(t.entity) > 0 {
		out = append(out, [2]string{t.latestFunc(), "the latest marker of " + w})
	}
	return out
}

// nullable returns the columns decoded through a pointer.
func (t *table) nullable() []*column {
	var out []*column
	for _, c := range t.cols {
		if !c.required && !c.secret && c.typ != template.TypeJSON {
			out = append(out, c)
		}
	}
	return out
}
