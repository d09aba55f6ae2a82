// This file holds Filter, the filters of history queries, and their wire
// form.

package client

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Filter is one node of a query's filterAnd list: a predicate on a column,
// the latest marker, or an AND/OR group of filters. Build it with Where,
// IsNull, IsNotNull, Latest, And and Or.
type Filter struct {
	column, op string
	value      any
	hasValue   bool
	latest     bool
	combinator string
	children   []Filter
}

// SQLOperators are the operators of filters: those the data backend
// accepts, and the seed's IS and IS NOT (see Where).
var SQLOperators = []string{"=", "!=", "<>", ">", "<", ">=", "<=", "LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE", "IN", "NOT IN", "IS NULL", "IS NOT NULL", "IS", "IS NOT"}

// Where builds the predicate `column op value`. Operators are normalised
// (trimmed, upper case: "like" is sent as "LIKE"). IN and NOT IN take a
// slice of scalars (or a comma-joined string); an empty slice is the empty
// set. Comparisons take a string, number, bool or time.Time. A nil value
// with "=", "IS" ("!=", "IS NOT") means IS NULL (IS NOT NULL) and is sent
// so, which every data backend reads. IS and IS NOT also take true or
// false, sent as {"column": c, "operator": "IS", "value": true}: unlike =
// and !=, IS NOT TRUE holds for NULL too.
func Where(column, op string, value any) Filter {
	return Filter{column: column, op: op, value: value, hasValue: true}
}

// IsNull builds `column IS NULL`.
func IsNull(column string) Filter { return Filter{column: column, op: "IS NULL"} }

// IsNotNull builds `column IS NOT NULL`.
func IsNotNull(column string) Filter { return Filter{column: column, op: "IS NOT NULL"} }

// Latest is the latest marker: only the newest row per entity (the table's
// maintainLatestFlagFor key), or the single newest row of a table without
// one. Not available in series queries.
func Latest() Filter { return Filter{latest: true} }

// And groups filters that must all hold.
func And(filters ...Filter) Filter { return Filter{combinator: "AND", children: filters} }

// Or groups filters of which at least one must hold.
func Or(filters ...Filter) Filter { return Filter{combinator: "OR", children: filters} }

func normalizeOp(op string) string {
	return strings.ToUpper(strings.Join(strings.Fields(op), " "))
}

func knownOp(op string) bool {
	for _, o := range SQLOperators {
		if o == op {
			return true
		}
	}
	return false
}

// isLatestMarker reports the latest marker, including the legacy predicate
// latest_flag = true.
func (f Filter) isLatestMarker() bool {
	if f.latest {
		return true
	}
	if f.column != "latest_flag" || normalizeOp(f.op) != "=" {
		return false
	}
	switch v := f.value.(type) {
	case bool:
		return v
	case string:
		return v == "true" || v == "1"
	case int:
		return v == 1
	case int64:
		return v == 1
	}
	return false
}

// containsLatest reports a latest marker anywhere in the filters.
func containsLatest(filters []Filter) bool {
	for _, f := range filters {
		if f.isLatestMarker() || containsLatest(f.children) {
			return true
		}
	}
	return false
}

// wire converts the filter to its wire node, validating it.
func (f Filter) wire(path string, warn func(string)) (map[string]any, error) {
	switch {
	case f.latest:
		return map[string]any{"latest": true}, nil
	case f.combinator != "":
		if len(f.children) == 0 {
			return nil, fmt.Errorf("%s: an %s group needs at least one filter", path, f.combinator)
		}
		nodes := make([]any, len(f.children))
		for i, ch := range f.children {
			n, err := ch.wire(fmt.Sprintf("%s.filters[%d]", path, i), warn)
			if err != nil {
				return nil, err
			}
			nodes[i] = n
		}
		return map[string]any{"combinator": f.combinator, "filters": nodes}, nil
	}
	if strings.TrimSpace(f.column) == "" {
		return nil, fmt.Errorf("%s: the column is empty", path)
	}
	op := normalizeOp(f.op)
	if f.hasValue && f.value == nil {
		switch op {
		case "=", "IS", "IS NULL":
			op = "IS NULL"
		case "!=", "<>", "IS NOT", "IS NOT NULL":
			op = "IS NOT NULL"
		default:
			return nil, fmt.Errorf("%s: %s needs a value; use IsNull or IsNotNull to test for NULL", path, op)
		}
	}
	node := map[string]any{"column": f.column, "operator": op}
	switch op {
	case "IS NULL", "IS NOT NULL":
		if f.value != nil {
			return nil, fmt.Errorf("%s: %s takes no value (got %v)", path, op, f.value)
		}
		return node, nil
	case "IS", "IS NOT":
		b, ok := f.value.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: %s takes nil, true or false, got %T", path, op, f.value)
		}
		node["value"] = b
		return node, nil
	case "IN", "NOT IN":
		v, err := setValue(f.value, path)
		if err != nil {
			return nil, err
		}
		node["value"] = v
		return node, nil
	}
	if !knownOp(op) {
		warn(fmt.Sprintf("%s: operator %q is not one the data backend knows; sent as given", path, f.op))
		op = f.op
		node["operator"] = op
	}
	v, err := scalarValue(f.value, path, op)
	if err != nil {
		return nil, err
	}
	node["value"] = v
	return node, nil
}

// scalarValue converts a comparison value: string, number, bool or time.
func scalarValue(v any, path, op string) (any, error) {
	if t, ok := v.(time.Time); ok {
		return formatTime(t, path+".value")
	}
	enc, err := encodeValue(v, path+".value")
	if err != nil {
		return nil, err
	}
	switch enc.(type) {
	case string, int64, uint64, float64, bool:
		return enc, nil
	case nil:
		return nil, fmt.Errorf("%s: %s needs a value", path, op)
	default:
		return nil, fmt.Errorf("%s: %s needs a string, number or bool, got %T (lists go with IN / NOT IN)", path, op, v)
	}
}

// setValue converts the value of IN / NOT IN: a list of scalars without
// nulls, or a comma-joined string. A nil slice is the empty set.
func setValue(v any, path string) (any, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
		return nil, fmt.Errorf("%s: IN needs a list of values, got %T", path, v)
	}
	out := make([]any, 0, rv.Len())
	for i := 0; i < rv.Len(); i++ {
		e, err := scalarValue(rv.Index(i).Interface(), fmt.Sprintf("%s.value[%d]", path, i), "IN")
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
