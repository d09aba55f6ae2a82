// This file holds the schema a realm is opened with, made from its data
// template (NewSchema), and how a backend keys a row by its entity: the
// entity key of a row's values and the key of one stored value.

package store

import (
	"math"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// EntityKeyOf encodes the entity key of a row's values of the table;
// complete is false when the table has none or a key value is
// NULL (such rows never conflict and are not merged).
func (s *TableSchema) EntityKeyOf(vals []any) (key string, complete bool) {
	if len(s.EntityKey) == 0 {
		return "", false
	}
	var sb strings.Builder
	complete = true
	for _, i := range s.EntityKey {
		sb.WriteString(ValueKey(vals[i]))
		sb.WriteByte(0x1f)
		if vals[i] == nil {
			complete = false
		}
	}
	return sb.String(), complete
}

// ValueKey encodes a stored value so that equal values give equal keys.
func ValueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00"
	case string:
		return "s" + x
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "b" + strconv.FormatBool(x)
	}
	return "j" + JSONText(v)
}

// NewSchema returns the schema of a realm's data backend with the data
// template tpl (nil: none): its declared tables in template order, then
// error-logs, and its transforms.
func NewSchema(realm string, tpl *template.DataTemplate) *Schema {
	s := &Schema{Realm: realm}
	var defs []template.Table
	if tpl != nil {
		defs = append(defs, tpl.Tables...)
		for i := range tpl.Transforms {
			s.Transforms = append(s.Transforms, NewTransformSchema(&tpl.Transforms[i]))
		}
	}
	defs = append(defs, template.ErrorLogsTable())
	for i := range defs {
		s.Tables = append(s.Tables, NewTableSchema(&defs[i]))
	}
	return s
}

// NewTableSchema returns the stored form of a declared table (or
// error-logs): its declared columns, then the implicit ones.
func NewTableSchema(def *template.Table) *TableSchema {
	ts := &TableSchema{Name: def.Name, Private: def.Private, System: def.Name == template.ErrorLogsName, ID: -1, Def: def}
	byID := map[string]int{}
	for _, c := range def.Columns {
		byID[c.ID] = len(ts.Columns)
		ts.Columns = append(ts.Columns, Column{ID: c.ID, Type: c.Type, Secret: c.Secret})
	}
	for _, c := range def.ImplicitColumns() {
		byID[c.ID] = len(ts.Columns)
		ts.Columns = append(ts.Columns, Column{ID: c.ID, Type: c.Type, Implicit: true})
	}
	ts.TSP, ts.DeviceKey, ts.AuthID = byID["tsp"], byID["device_key"], byID["authid"]
	if i, ok := byID["id"]; ok && ts.Columns[i].Implicit {
		ts.ID = i
	}
	for _, k := range def.EntityKey {
		ts.EntityKey = append(ts.EntityKey, byID[k])
	}
	return ts
}

// NewTransformSchema returns the stored form of a declared transform.
func NewTransformSchema(def *template.Transform) *TransformSchema {
	v := &TransformSchema{Name: def.Name, Private: def.Private, Def: def}
	for _, c := range def.Columns {
		v.Columns = append(v.Columns, Column{ID: c.ID, Type: c.Type, Secret: c.Secret})
	}
	return v
}
