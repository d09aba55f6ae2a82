package template

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Table is one entry of data.tables.
type Table struct {
	// Name is the tablename.
	Name string
	// Description is free text.
	Description string
	// Private tables are not readable by consuming apps (default false:
	// shared with them).
	Private bool
	// EntityKey lists the columns of maintainLatestFlagFor: the latest
	// marker returns one row per distinct entity key. Empty without one.
	EntityKey []string
	// ChunkTimeInterval is the storage chunk interval text, e.g. "1 day".
	ChunkTimeInterval string
	// DropAfter is the retention, e.g. "30 days"; empty keeps rows forever.
	DropAfter string
	// Columnstore enables columnar compression of old chunks.
	Columnstore bool
	// ColumnstoreAfter is the age after which chunks are compressed.
	ColumnstoreAfter string
	// Downsample configures downsampling, nil when absent.
	Downsample *Downsample
	// Columns are the declared columns in file order; there is always one
	// with ID "tsp" and Type TypeTimestamp.
	Columns []Column
}

// Downsample is the downsample option of a table.
type Downsample struct {
	// Bucket is the bucket width, e.g. "1 hour".
	Bucket string
	// KeepFor is how long downsampled rows are kept.
	KeepFor string
	// Paths are the columns (or paths into json columns) to downsample.
	Paths []string
}

// Column is one column of a table or transform.
type Column struct {
	// ID is the column name in storage and in rows.
	ID string
	// Name is the display name.
	Name string
	// Description is free text.
	Description string
	// Type is the dataType.
	Type DataType
	// Path is where the value is read in a published message, in lodash
	// style over {args, kwargs, details}; default DefaultPath(ID). See
	// PathKeys.
	Path string
	// Secret columns are encrypted at rest and read back as a placeholder.
	Secret bool
}

// DataType is the dataType of a column.
type DataType string

// The column data types.
const (
	// TypeNumeric is a floating-point or decimal number.
	TypeNumeric DataType = "numeric"
	// TypeBigint is a 64-bit integer.
	TypeBigint DataType = "bigint"
	// TypeTimestamp is a point in time (ISO 8601 text or milliseconds).
	TypeTimestamp DataType = "timestamp"
	// TypeString is text.
	TypeString DataType = "string"
	// TypeBoolean is true or false.
	TypeBoolean DataType = "boolean"
	// TypeJSON is any JSON value.
	TypeJSON DataType = "json"
)

var dataTypes = []DataType{TypeNumeric, TypeBigint, TypeTimestamp, TypeString, TypeBoolean, TypeJSON}

// Valid reports whether d is one of the six data types.
func (d DataType) Valid() bool {
	return slices.Contains(dataTypes, d)
}

// Column returns the declared column with that id.
func (t *Table) Column(id string) (*Column, bool) {
	return findColumn(t.Columns, id)
}

// HasSecret reports whether any column of t is secret.
func (t *Table) HasSecret() bool {
	return slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Secret })
}

// ImplicitColumns returns the columns the platform adds to every table:
// device_key (bigint, the publishing device) and authid (string), and for
// the system table also its auto-increment id (bigint). Their Path is empty:
// the backend fills them, they are not read from the message.
func (t *Table) ImplicitColumns() []Column {
	cols := []Column{
		{ID: "device_key", Name: "Device key", Type: TypeBigint, Description: "the publishing device"},
		{ID: "authid", Name: "Auth ID", Type: TypeString, Description: "the publishing session's authid"},
	}
	if t.Name == ErrorLogsName {
		cols = append(cols, Column{ID: "id", Name: "ID", Type: TypeBigint, Description: "auto-increment row id"})
	}
	return cols
}

func findColumn(cols []Column, id string) (*Column, bool) {
	for i := range cols {
		if cols[i].ID == id {
			return &cols[i], true
		}
	}
	return nil, false
}

var tableKeys = []string{"tablename", "description", "private", "maintainLatestFlagFor", "chunkTimeInterval",
	"dropAfter", "columnstore", "columnstoreAfter", "downsample", "columns"}

// table walks one table. It returns the table, the node of its name (for
// uniqueness findings) and whether the name is usable.
func (c *checker) table(n *yaml.Node, path string) (Table, *yaml.Node, bool) {
	var t Table
	m := c.mapping(n, path, "a table mapping with tablename and columns")
	if m == nil {
		return t, nil, false
	}
	c.unknownKeys(m, tableKeys)
	nameNode, ok := c.tableName(m)
	if ok {
		t.Name = nameNode.Value
	}
	c.optText(m, "description", &t.Description)
	c.optBool(m, "private", &t.Private)
	var cols map[string]located
	if v := c.required(m, "columns", "every table declares at least the column tsp with dataType timestamp"); v != nil {
		t.Columns, cols = c.columns(v, keyPath(path, "columns"))
		c.checkTsp(t.Columns, cols, m)
	}
	if v := m.value("maintainLatestFlagFor"); v != nil {
		t.EntityKey = c.entityKey(v, keyPath(path, "maintainLatestFlagFor"), t.Columns)
	}
	c.interval(m, "chunkTimeInterval", &t.ChunkTimeInterval)
	c.interval(m, "dropAfter", &t.DropAfter)
	c.optBool(m, "columnstore", &t.Columnstore)
	c.interval(m, "columnstoreAfter", &t.ColumnstoreAfter)
	if t.ColumnstoreAfter != "" && !t.Columnstore {
		c.warnf(m.at("columnstoreAfter"), keyPath(path, "columnstoreAfter"), "has no effect unless columnstore is true")
	}
	if v := m.value("downsample"); v != nil {
		t.Downsample = c.downsample(v, keyPath(path, "downsample"), t.Columns)
	}
	return t, nameNode, ok
}

// tableName reads and checks the tablename of a table or transform.
func (c *checker) tableName(m *mapping) (*yaml.Node, bool) {
	v := c.required(m, "tablename", "")
	if v == nil {
		return nil, false
	}
	p := keyPath(m.path, "tablename")
	name, ok := c.text(v, p)
	if !ok {
		return nil, false
	}
	if msg := checkTableName(name); msg != "" {
		c.errorf(v, p, "%s", msg)
		return nil, false
	}
	return v, true
}

// checkTsp reports a missing tsp column or one of the wrong type.
func (c *checker) checkTsp(cols []Column, nodes map[string]located, table *mapping) {
	tsp, ok := findColumn(cols, "tsp")
	if !ok {
		c.errorf(table.at("columns"), keyPath(table.path, "columns"), "no tsp column; every table must declare a column with id tsp and dataType timestamp")
		return
	}
	if tsp.Type != TypeTimestamp && tsp.Type.Valid() {
		at := nodes["tsp"]
		c.errorf(at.node, at.path, "the tsp column must have dataType timestamp, got %s", tsp.Type)
	}
}

var columnKeys = []string{"id", "name", "description", "dataType", "path", "secret"}

// located is a node with its finding path.
type located struct {
	node *yaml.Node
	path string
}

// columns walks a columns list. It returns the usable columns and where
// each one's dataType is (or the column, when it has none), for later
// findings.
func (c *checker) columns(n *yaml.Node, path string) ([]Column, map[string]located) {
	items, _ := c.sequence(n, path, "a list of columns")
	var out []Column
	nodes := map[string]located{}
	ids := map[string]*yaml.Node{}
	for i, it := range items {
		p := indexPath(path, i)
		m := c.mapping(it, p, "a column mapping with id and dataType")
		if m == nil {
			continue
		}
		c.unknownKeys(m, columnKeys)
		col, ok := Column{}, true
		if v := c.required(m, "id", ""); v == nil {
			ok = false
		} else if col.ID, ok = c.text(v, keyPath(p, "id")); ok {
			if msg := checkColumnID(col.ID); msg != "" {
				c.errorf(v, keyPath(p, "id"), "%s", msg)
				ok = false
			} else if prev := ids[col.ID]; prev != nil {
				c.errorf(v, keyPath(p, "id"), "duplicate column id %q (first at line %d); ids are unique within a table", col.ID, prev.Line)
				ok = false
			} else {
				ids[col.ID] = v
				nodes[col.ID] = located{m.at("dataType"), keyPath(p, "dataType")}
			}
		}
		c.optText(m, "name", &col.Name)
		c.optText(m, "description", &col.Description)
		if v := c.required(m, "dataType", "allowed: "+typeList()); v != nil {
			col.Type = c.dataType(v, keyPath(p, "dataType"))
		}
		col.Path = DefaultPath(col.ID)
		if v := m.value("path"); v != nil {
			if s, tok := c.text(v, keyPath(p, "path")); tok {
				if msg := checkColumnPath(s); msg != "" {
					c.errorf(v, keyPath(p, "path"), "%s", msg)
				} else {
					col.Path = s
				}
			}
		}
		c.optBool(m, "secret", &col.Secret)
		if col.Secret {
			switch sp := keyPath(p, "secret"); {
			case col.ID == "tsp":
				c.errorf(m.at("secret"), sp, "the tsp column cannot be secret")
			case col.Type.Valid() && col.Type != TypeString:
				c.errorf(m.at("secret"), sp, "secret is only allowed on string columns; this column is %s", col.Type)
			}
		}
		if ok {
			out = append(out, col)
		}
	}
	return out, nodes
}

func typeList() string {
	s := make([]string, len(dataTypes))
	for i, d := range dataTypes {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

// dataType reads a dataType value.
func (c *checker) dataType(n *yaml.Node, path string) DataType {
	s, ok := c.text(n, path)
	if !ok {
		return ""
	}
	d := DataType(s)
	if d.Valid() {
		return d
	}
	msg := fmt.Sprintf("unknown type %q; allowed: %s", s, typeList())
	if low := DataType(strings.ToLower(s)); low.Valid() {
		msg += fmt.Sprintf(" (did you mean %q?)", low)
	}
	c.errorf(n, path, "%s", msg)
	return ""
}

// entityKey walks maintainLatestFlagFor: a list of column ids, or one
// column id written as a plain string (a one-element list).
func (c *checker) entityKey(n *yaml.Node, path string, cols []Column) []string {
	single := false
	var items []*yaml.Node
	if r := resolve(n); r != nil && r.Kind == yaml.ScalarNode && r.Tag == "!!str" {
		items, single = []*yaml.Node{r}, true
	} else {
		var ok bool
		if items, ok = c.sequence(n, path, "a list of column ids, for example [machine]"); !ok {
			return nil
		}
	}
	var out []string
	seen := map[string]*yaml.Node{}
	for i, it := range items {
		p := indexPath(path, i)
		if single {
			p = path
		}
		id, ok := c.text(it, p)
		if !ok {
			continue
		}
		col, found := findColumn(cols, id)
		switch {
		case id == "tsp":
			c.errorf(it, p, "tsp cannot be part of the entity key; the key is unique together with tsp")
		case seen[id] != nil:
			c.errorf(it, p, "column %q is listed twice (first at line %d)", id, seen[id].Line)
		case id == "device_key" || id == "authid":
			out = append(out, id)
		case !found:
			ids := make([]string, 0, len(cols))
			for _, c := range cols {
				if c.ID != "tsp" {
					ids = append(ids, c.ID)
				}
			}
			c.errorf(it, p, "unknown column %q; allowed: a column of this table other than tsp (%s) or device_key, authid", id, strings.Join(ids, ", "))
		case col.Secret:
			c.errorf(it, p, "secret column %q cannot be part of the entity key", id)
		default:
			out = append(out, id)
		}
		seen[id] = it
	}
	return out
}

// intervalText loosely matches PostgreSQL interval texts such as "30 days",
// "1 hour", "1 day 12 hours" or "90min".
var intervalText = regexp.MustCompile(`(?i)^\s*([0-9]+(\.[0-9]+)?\s*(microseconds?|milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|h|days?|d|weeks?|w|months?|mons?|years?|y)\s*)+$`)

// interval reads an optional interval text such as "30 days". The format
// is PostgreSQL's; text that does not look like one is only a warning.
func (c *checker) interval(m *mapping, key string, dst *string) {
	v := m.value(key)
	if v == nil {
		return
	}
	p := keyPath(m.path, key)
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
		if v.Kind == yaml.ScalarNode {
			c.warnf(v, p, "%s is not an interval text; write a quantity and a unit, for example \"30 days\"", describe(v))
			*dst = v.Value
			return
		}
		c.errorf(v, p, "must be an interval text such as \"30 days\", got %s", describe(v))
		return
	}
	*dst = v.Value
	if !intervalText.MatchString(v.Value) {
		c.warnf(v, p, "%q does not look like an interval; write quantities and units, for example \"30 days\" or \"1 hour\"", v.Value)
	}
}

var downsampleKeys = []string{"bucket", "keepFor", "paths"}

// downsample walks a table's downsample option.
func (c *checker) downsample(n *yaml.Node, path string, cols []Column) *Downsample {
	m := c.mapping(n, path, "a mapping with the keys bucket, keepFor and paths")
	if m == nil {
		return nil
	}
	c.unknownKeys(m, downsampleKeys)
	d := &Downsample{}
	if c.required(m, "bucket", `the bucket width, for example "1 hour"`) != nil {
		c.interval(m, "bucket", &d.Bucket)
	}
	c.interval(m, "keepFor", &d.KeepFor)
	if v := m.value("paths"); v != nil {
		items, _ := c.sequence(v, keyPath(path, "paths"), "a list of columns to downsample")
		for i, it := range items {
			p := indexPath(keyPath(path, "paths"), i)
			s, ok := c.text(it, p)
			if !ok {
				continue
			}
			head, _, _ := strings.Cut(s, ".")
			if _, found := findColumn(cols, head); !found {
				c.warnf(it, p, "%q does not start with a column of this table", s)
			}
			d.Paths = append(d.Paths, s)
		}
	}
	return d
}
