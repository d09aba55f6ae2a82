// This file holds the filters of the data backend's reads (docs/wire.md §7.5,
// docs/fake.md §3), used by history.transformed.<t>, history.transformed.<transform>
// and history.transformed.series.<t>: sanitation (unknown columns dropped,
// implicit columns typed, secret columns refused, group and condition
// mixed refused, empty groups removed, values that cannot be coerced to a
// numeric, timestamp or boolean column drop their condition) and
// evaluation with SQL three-valued logic. The operators are in
// filter_ops.go.
//
// Choices where the documents are silent: a comparison, LIKE or IN without
// a value, or a comparison or LIKE with a list value, is invalid_filter; a
// condition on a path into a json column (payload.temp) is typed by its
// value (number, boolean, otherwise text) and a stored value that does not
// fit the type is NULL; LIKE matches such text paths; a bare json column
// compares canonical JSON texts; IN and NOT IN split a text value at commas
// and trim the items; text compares byte-wise (collation "C"); a latest
// marker inside a group counts like one at the top; a latest_flag
// condition that is not the legacy marker is dropped.

package fleetdb

import (
	"strconv"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// filterEnv compiles the filters of one read.
type filterEnv struct {
	cols     []column
	byID     map[string]int
	implicit bool // tables: device_key, authid (id) and latest_flag are known
	latest   bool // a latest marker was found
}

// operand is the left side of a condition.
type operand struct {
	col  *column
	idx  int
	path []string // keys below a json column; nil for a column
}

// leaf returns a condition on o.
func (o *operand) leaf(op string, kind ValueKind, value any, eval cond) *Filter {
	return &Filter{Op: op, Col: o.idx, Path: o.path, Kind: kind, Value: value, Eval: eval}
}

func (t *table) filterEnv() *filterEnv {
	return &filterEnv{cols: t.cols, byID: t.byID, implicit: true}
}

func (v *view) filterEnv() *filterEnv {
	return &filterEnv{cols: v.cols, byID: v.byID}
}

// compile compiles filterAnd: every node must hold. A nil Filter means no
// condition.
func (fe *filterEnv) compile(nodes []any, path string) (*Filter, *fleetError) {
	return fe.list(nodes, path, false)
}

// list compiles nodes combined with AND or OR; dropped nodes do not count,
// and a list left empty is no condition.
func (fe *filterEnv) list(nodes []any, path string, or bool) (*Filter, *fleetError) {
	var fs []*Filter
	for i, n := range nodes {
		f, err := fe.node(n.(map[string]any), path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		if f != nil {
			fs = append(fs, f)
		}
	}
	return store.Combine(fs, or), nil
}

func (fe *filterEnv) node(m map[string]any, path string) (*Filter, *fleetError) {
	_, comb := m["combinator"]
	_, filters := m["filters"]
	_, col := m["column"]
	_, op := m["operator"]
	_, val := m["value"]
	_, latest := m["latest"]
	group, leaf := comb || filters, col || op || val || latest
	switch {
	case group && leaf, latest && (col || op || val):
		return nil, dataRefusal(errInvalidFilter, "filter %s mixes a group, a condition or the latest marker in one node", path)
	case latest:
		fe.latest = true
		return nil, nil
	case group:
		return fe.list(m["filters"].([]any), path+".filters", m["combinator"] == "OR")
	}
	return fe.predicate(m, path)
}

// resolve finds the operand a condition names; nil when unknown.
func (fe *filterEnv) resolve(name string) *operand {
	if i, ok := fe.byID[name]; ok && (fe.implicit || !fe.cols[i].implicit) {
		return &operand{col: &fe.cols[i], idx: i}
	}
	keys, err := template.PathKeys(name)
	if err != nil || len(keys) < 2 {
		return nil
	}
	i, ok := fe.byID[keys[0]]
	if !ok || fe.cols[i].typ != template.TypeJSON {
		return nil
	}
	return &operand{col: &fe.cols[i], idx: i, path: keys[1:]}
}

// isLegacyLatest reports the legacy marker latest_flag = true.
func isLegacyLatest(op string, v any) bool {
	if op != "=" {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x == "true" || x == "1"
	}
	return store.IsNumber(v) && store.NumberOf(v) == 1
}

func (fe *filterEnv) predicate(m map[string]any, path string) (*Filter, *fleetError) {
	name, op := m["column"].(string), m["operator"].(string)
	val, hasVal := m["value"]
	if fe.implicit && name == "latest_flag" {
		if isLegacyLatest(op, val) {
			fe.latest = true
		}
		return nil, nil
	}
	o := fe.resolve(name)
	if o == nil {
		return nil, nil // unknown columns are dropped
	}
	if o.col.secret {
		return nil, dataRefusal(errSecretColumn, "filter %s: column %q is secret and cannot be filtered on", path, name)
	}
	switch op {
	case "IS NULL", "IS NOT NULL":
		return o.isNull(op == "IS NULL"), nil
	case "IS", "IS NOT":
		return o.is(op == "IS", val), nil
	}
	if !hasVal {
		return nil, dataRefusal(errInvalidFilter, "filter %s: operator %s needs a value", path, op)
	}
	if op == "IN" || op == "NOT IN" {
		return o.in(op == "IN", val), nil
	}
	if _, isList := val.([]any); isList {
		return nil, dataRefusal(errInvalidFilter, "filter %s: operator %s takes a single value, not a list", path, op)
	}
	switch op {
	case "LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE":
		return o.like(op, store.JSString(val)), nil
	}
	if op == "<>" {
		op = "!="
	}
	kind := o.kind(val)
	want, ok := coerce(kind, val)
	if !ok {
		return nil, nil
	}
	get := o.getter(kind)
	test := comparison(op)
	return o.leaf(op, kind, want, func(vals []any) tri {
		v := get(vals)
		if v == nil {
			return triNull
		}
		return boolTri(test(compareKind(kind, v, want)))
	}), nil
}

func boolTri(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func comparison(op string) func(int) bool {
	switch op {
	case "=":
		return func(c int) bool { return c == 0 }
	case "!=":
		return func(c int) bool { return c != 0 }
	case ">":
		return func(c int) bool { return c > 0 }
	case "<":
		return func(c int) bool { return c < 0 }
	case ">=":
		return func(c int) bool { return c >= 0 }
	}
	return func(c int) bool { return c <= 0 } // <=
}
