// This file holds the filters a store applies (Filter): a tree of groups
// and typed conditions, compiled and sanitised by the data service, with
// SQL's three-valued logic as the reference evaluation (Match).

package store

// Tri is a truth value of SQL three-valued logic.
type Tri int8

const (
	TriFalse Tri = iota
	TriTrue
	TriNull
)

// Cond evaluates a filter on the values of a row (one per column).
type Cond func(vals []any) Tri

// Filter is a compiled filterAnd, the conditions a store applies: a tree
// of groups (Op "AND" or "OR" over Nodes) and conditions on a column or a
// path into a json column. A nil *Filter is no condition. Conditions are
// already sanitised (unknown columns, uncoercible values and the latest
// marker are gone) and typed:
//
//   - comparisons "=", "!=", "<", "<=", ">", ">=": the operand read as Kind
//     compared with Value (KindNumber float64, KindTime int64 epoch ms,
//     KindText string, byte-wise, KindBool bool, KindJSON the canonical
//     JSON text of a bare json column);
//   - "IN", "NOT IN": Values of one Kind; no Values matches nothing (IN) or
//     everything (NOT IN), NULL included;
//   - "LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE": Value is the pattern;
//     text, bigint and boolean columns (as text) and paths (as text)
//     match, other columns never;
//   - "IS NULL", "IS NOT NULL" (a missing key or JSON null at a path is
//     NULL); "IS", "IS NOT" with Value true or false: never unknown, and
//     only a boolean value (of a boolean column, or at a path) is true or
//     false;
//
// with SQL's three-valued logic (a NULL operand is unknown, and a row
// matches when the whole tree is true). Match is the reference evaluation.
type Filter struct {
	Op     string
	Nodes  []*Filter // the members of a group
	Col    int       // the operand's column
	Path   []string  // keys below a json column; nil for the column
	Kind   ValueKind
	Value  any
	Values []any // IN, NOT IN
	// Eval is the reference evaluation of the tree (Match).
	Eval Cond
}

// Match reports whether a row's values satisfy f; a nil f matches every
// row.
func (f *Filter) Match(vals []any) bool { return f == nil || f.Eval(vals) == TriTrue }

// Combine joins filters with AND (or OR); nil for none, the filter itself
// for one.
func Combine(fs []*Filter, or bool) *Filter {
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	op := "AND"
	if or {
		op = "OR"
	}
	return &Filter{Op: op, Nodes: fs, Eval: func(vals []any) Tri {
		res := TriFalse
		if !or {
			res = TriTrue
		}
		for _, f := range fs {
			switch f.Eval(vals) {
			case TriNull:
				res = TriNull
			case TriTrue:
				if or {
					return TriTrue
				}
			case TriFalse:
				if !or {
					return TriFalse
				}
			}
		}
		return res
	}}
}

// ValueKind is how a condition reads and compares values (Filter).
type ValueKind int

// The kinds of conditions.
const (
	// KindNumber compares as float64: numeric and bigint columns, and
	// numbers (or numeric texts) at a json path compared with a number.
	KindNumber ValueKind = iota
	// KindTime compares timestamp columns as int64 epoch milliseconds.
	KindTime
	// KindText compares text byte-wise: string columns, and json paths
	// compared with a text (objects and lists as their JSON text).
	KindText
	// KindBool compares booleans: boolean columns, and booleans at a json
	// path compared with a boolean.
	KindBool
	// KindJSON compares a bare json column as canonical JSON text.
	KindJSON
)
