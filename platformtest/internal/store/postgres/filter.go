// This file holds the filters of the PostgreSQL store's reads (postgres.go):
// a compiled store.Filter (filter.go) as a SQL condition with parameters, with
// the reference semantics of store.Filter.Match (filter_ops.go). It serves no
// URI.
//
// A filter tree only combines its conditions with AND and OR, which are
// monotone in SQL's three-valued logic: whether the whole tree is true
// depends only on which conditions are true. So a condition here needs
// only be true for exactly the rows Match finds true; where it is false
// or unknown does not matter (NOT IN and NOT LIKE are negated inside
// their own condition).
//
// Operands: a column as stored (bigint read as double precision for
// numbers, a json column as its canonical text for comparisons), or a
// value at a path into a json column read by the store's functions
// (funcs.go) as a number, a boolean or a text. Text compares
// byte-wise (COLLATE "C"). A time outside timestamptz's range compares
// as every stored time does with it.

package postgres

import (
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// sqlArgs collects the parameters of a statement.
type sqlArgs []any

// add appends a parameter and returns its placeholder.
func (a *sqlArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// pgFilter compiles filters over the columns of a table or transform.
type pgFilter struct {
	args *sqlArgs
	cols []store.Column
	// col returns the SQL of column i, of the type of its stored form.
	col  func(i int) string
	meta string // the quoted schema of the store's functions
	// fold is the collation ILIKE folds case in (Unicode); empty: the
	// operand's (ASCII only).
	fold string
}

// sql returns f as a SQL condition; "TRUE" for a nil f.
func (c *pgFilter) sql(f *store.Filter) string {
	if f == nil {
		return "TRUE"
	}
	switch f.Op {
	case "AND", "OR":
		parts := make([]string, len(f.Nodes))
		for i, n := range f.Nodes {
			parts[i] = c.sql(n)
		}
		return "(" + strings.Join(parts, " "+f.Op+" ") + ")"
	case "IS NULL", "IS NOT NULL":
		return c.isNull(f)
	case "IS", "IS NOT":
		return c.is(f)
	case "IN", "NOT IN":
		return c.in(f)
	case "LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE":
		return c.like(f)
	}
	return c.compare(f)
}

// json returns the value at f's path as jsonb (SQL NULL when a key is
// missing), as store.WalkJSON reads it: an integer key indexes an array, other
// keys name object members.
func (c *pgFilter) json(f *store.Filter) string {
	return jsonPathSQL(c.col(f.Col), f.Path)
}

// jsonPathSQL is the value at keys below the jsonb expression x.
func jsonPathSQL(x string, keys []string) string {
	negative := false
	lits := make([]string, len(keys))
	for i, k := range keys {
		lits[i] = ql(k)
		if n, err := strconv.Atoi(k); err == nil && n < 0 {
			negative = true
		}
	}
	if !negative {
		return "(" + x + " #> ARRAY[" + strings.Join(lits, ", ") + "]::text[])"
	}
	// PostgreSQL counts negative array indexes from the end; store.WalkJSON
	// finds nothing there.
	for _, k := range keys {
		if n, err := strconv.Atoi(k); err == nil && n < 0 {
			x = "(CASE WHEN jsonb_typeof(" + x + ") = 'array' THEN NULL ELSE " + x + " -> " + ql(k) + " END)"
		} else {
			x = "(" + x + " #> ARRAY[" + ql(k) + "]::text[])"
		}
	}
	return x
}

// operand returns the SQL of f's operand read as kind, as
// operand.getter does.
func (c *pgFilter) operand(f *store.Filter, kind store.ValueKind) string {
	if f.Path != nil {
		p := c.json(f)
		switch kind {
		case store.KindNumber:
			return c.meta + ".ifl_path_number(" + p + ")"
		case store.KindBool:
			return "(CASE WHEN jsonb_typeof(" + p + ") = 'boolean' THEN (" + p + ")::boolean END)"
		case store.KindTime, store.KindText, store.KindJSON: // as text
		}
		return "(" + c.meta + ".ifl_path_text(" + p + ") COLLATE \"C\")"
	}
	x := c.col(f.Col)
	switch c.cols[f.Col].Type {
	case template.TypeBigint:
		return "(" + x + ")::double precision"
	case template.TypeJSON:
		return "(" + c.meta + ".ifl_go_json(" + x + ") COLLATE \"C\")"
	case template.TypeNumeric, template.TypeTimestamp, template.TypeString, template.TypeBoolean: // as stored
	}
	return x
}

// param adds a filter value of kind and returns its SQL; ok is false for
// a time outside timestamptz's range (outside says on which side).
func (c *pgFilter) param(kind store.ValueKind, v any) (sql string, outside int) {
	switch kind {
	case store.KindNumber:
		return c.args.add(v.(float64)) + "::double precision", 0
	case store.KindTime:
		ms := v.(int64)
		switch {
		case ms < pgMinMs:
			return "", -1
		case ms >= pgMaxMs:
			return "", 1
		}
		return c.args.add(time.UnixMilli(ms).UTC()) + "::timestamptz", 0
	case store.KindBool:
		return c.args.add(v.(bool)) + "::boolean", 0
	case store.KindText, store.KindJSON: // a text
	}
	return c.args.add(v.(string)) + "::text", 0
}

// compare is =, !=, <, <=, > or >= after the coercions of store.Filter.
func (c *pgFilter) compare(f *store.Filter) string {
	x := c.operand(f, f.Kind)
	p, outside := c.param(f.Kind, f.Value)
	if outside != 0 {
		// Every stored time is above (outside < 0) or below the value.
		greater := outside < 0
		holds := map[string]bool{"!=": true, ">": greater, ">=": greater, "<": !greater, "<=": !greater}[f.Op]
		if holds {
			return "(" + x + " IS NOT NULL)"
		}
		return "FALSE"
	}
	op := f.Op
	if op == "!=" {
		op = "<>"
	}
	return "(" + x + " " + op + " " + p + ")"
}

// isNull is IS NULL or IS NOT NULL: a missing key or JSON null at a path
// is NULL.
func (c *pgFilter) isNull(f *store.Filter) string {
	null := f.Op == "IS NULL"
	if f.Path != nil {
		op := "="
		if !null {
			op = "<>"
		}
		return "(coalesce(jsonb_typeof(" + c.json(f) + "), 'null') " + op + " 'null')"
	}
	if null {
		return "(" + c.col(f.Col) + " IS NULL)"
	}
	return "(" + c.col(f.Col) + " IS NOT NULL)"
}

// is is IS or IS NOT true or false: only a boolean value (of a boolean
// column, or at a path) is true or false.
func (c *pgFilter) is(f *store.Filter) string {
	positive := f.Op == "IS"
	if f.Path == nil && c.cols[f.Col].Type != template.TypeBoolean {
		if positive {
			return "FALSE"
		}
		return "TRUE"
	}
	test := "TRUE"
	if f.Value == false {
		test = "FALSE"
	}
	if !positive {
		test = "NOT " + test
	}
	return "(" + c.operand(f, store.KindBool) + " IS " + test + ")"
}

// in is IN or NOT IN over a set of values of one kind; the empty set
// matches nothing (IN) or everything (NOT IN), NULL included.
func (c *pgFilter) in(f *store.Filter) string {
	positive := f.Op == "IN"
	if len(f.Values) == 0 {
		if positive {
			return "FALSE"
		}
		return "TRUE"
	}
	var arr any
	var typ string
	switch f.Kind {
	case store.KindNumber:
		a := make([]float64, len(f.Values))
		for i, v := range f.Values {
			a[i] = v.(float64)
		}
		arr, typ = a, "double precision[]"
	case store.KindTime:
		a := make([]time.Time, 0, len(f.Values))
		for _, v := range f.Values {
			if ms := v.(int64); ms >= pgMinMs && ms < pgMaxMs {
				a = append(a, time.UnixMilli(ms).UTC()) // times outside the range equal no stored time
			}
		}
		arr, typ = a, "timestamptz[]"
	case store.KindBool:
		a := make([]bool, len(f.Values))
		for i, v := range f.Values {
			a[i] = v.(bool)
		}
		arr, typ = a, "boolean[]"
	case store.KindText, store.KindJSON:
		a := make([]string, len(f.Values))
		for i, v := range f.Values {
			a[i] = v.(string)
		}
		arr, typ = a, "text[]"
	}
	x := c.operand(f, f.Kind)
	match := x + " = ANY(" + c.args.add(arr) + "::" + typ + ")"
	if positive {
		return "(" + match + ")"
	}
	return "(" + x + " IS NOT NULL AND NOT (" + match + "))"
}

// like is LIKE, ILIKE and their negations: text, bigint and boolean
// columns (as text) and text at a path match, other columns never. A
// backslash escapes the next character; a lone backslash at the end is
// dropped, as the reference does. ILIKE folds the case of every letter
// (ICU's root collation) where the server has ICU, of ASCII letters
// otherwise.
func (c *pgFilter) like(f *store.Filter) string {
	var x string
	switch {
	case f.Path != nil:
		x = c.operand(f, store.KindText)
	case c.cols[f.Col].Type == template.TypeString:
		x = c.col(f.Col)
	case c.cols[f.Col].Type == template.TypeBigint || c.cols[f.Col].Type == template.TypeBoolean:
		x = "((" + c.col(f.Col) + ")::text COLLATE \"C\")"
	default:
		return "FALSE"
	}
	op := strings.TrimPrefix(f.Op, "NOT ")
	operand := x
	if op == "ILIKE" && c.fold != "" {
		operand = "(" + x + " COLLATE " + c.fold + ")"
	}
	match := operand + " " + op + " " + c.args.add(likePattern(f.Value.(string))) + "::text"
	if strings.HasPrefix(f.Op, "NOT ") {
		return "(" + x + " IS NOT NULL AND NOT (" + match + "))"
	}
	return "(" + match + ")"
}

// likePattern drops a trailing unescaped backslash, which PostgreSQL
// refuses and the reference ignores.
func likePattern(p string) string {
	escaped := false
	for i := 0; i < len(p); i++ {
		if escaped {
			escaped = false
			continue
		}
		if p[i] == '\\' {
			if i == len(p)-1 {
				return p[:i]
			}
			escaped = true
		}
	}
	return p
}
