// This file holds the operators of the data backend's filters (docs/wire.md
// §7.5, docs/fake.md §3), for history.transformed.<t>, history.transformed.<transform>
// and history.transformed.series.<t>: how an operand and a filter value
// are typed and compared, IN / NOT IN and LIKE / ILIKE.

package fleetdb

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// kind is how the operand compares with a filter value.
func (o *operand) kind(sample any) ValueKind {
	if o.path != nil {
		switch {
		case store.IsNumber(sample):
			return store.KindNumber
		case sample == true || sample == false:
			return store.KindBool
		}
		return store.KindText
	}
	return store.TypeOf(o.col.typ).Kind
}

// getter returns the operand's value of a row in the form of kind; nil is
// NULL.
func (o *operand) getter(kind ValueKind) func([]any) any {
	i := o.idx
	if o.path == nil {
		switch o.col.typ {
		case template.TypeNumeric, template.TypeBigint:
			return func(vals []any) any {
				if vals[i] == nil {
					return nil
				}
				return store.NumberOf(vals[i])
			}
		case template.TypeJSON:
			return func(vals []any) any {
				if vals[i] == nil {
					return nil
				}
				return store.JSONText(vals[i])
			}
		case template.TypeTimestamp, template.TypeString, template.TypeBoolean: // as stored
		}
		return func(vals []any) any { return vals[i] }
	}
	keys := o.path
	return func(vals []any) any {
		v := store.WalkJSON(vals[i], keys)
		switch kind {
		case store.KindNumber:
			if store.IsNumber(v) {
				return store.NumberOf(v)
			}
			if s, ok := v.(string); ok {
				if f := store.JSNumberText(s); !math.IsNaN(f) && strings.TrimSpace(s) != "" {
					return f
				}
			}
			return nil
		case store.KindBool:
			if b, ok := v.(bool); ok {
				return b
			}
			return nil
		}
		switch x := v.(type) {
		case nil:
			return nil
		case string:
			return x
		case map[string]any, []any:
			return store.JSONText(x)
		}
		return store.JSString(v)
	}
}

// coerce converts a filter value to the form of kind; ok is false when it
// cannot be (the condition is then dropped).
func coerce(kind ValueKind, v any) (any, bool) {
	switch kind {
	case store.KindNumber:
		f := store.JSNumber(v)
		return f, !math.IsNaN(f)
	case store.KindTime:
		return filterTime(v)
	case store.KindBool:
		return boolInput(v)
	case store.KindJSON:
		if s, ok := v.(string); ok {
			var parsed any
			if json.Unmarshal([]byte(s), &parsed) == nil {
				return store.JSONText(parsed), true
			}
		}
		return store.JSONText(v), true
	}
	return store.JSString(v), true
}

// boolInput reads a boolean as Postgres does: true, false, t, f, yes, no,
// on, off, 1, 0 in any case.
func boolInput(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "t", "yes", "y", "on", "1":
			return true, true
		case "false", "f", "no", "n", "off", "0":
			return false, true
		}
		return nil, false
	}
	if store.IsNumber(v) {
		switch store.NumberOf(v) {
		case 1:
			return true, true
		case 0:
			return false, true
		}
	}
	return nil, false
}

// compareKind compares two values of one kind.
func compareKind(kind ValueKind, a, b any) int {
	switch kind {
	case store.KindNumber:
		x, y := a.(float64), b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case store.KindTime:
		x, y := a.(int64), b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case store.KindBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	return strings.Compare(a.(string), b.(string))
}

// in compiles IN / NOT IN: a list, a comma-joined text, or one value. The
// empty set matches nothing (IN) or everything (NOT IN), NULL included.
func (o *operand) in(positive bool, val any) *Filter {
	var items []any
	switch x := val.(type) {
	case []any:
		items = x
	case string:
		for _, s := range strings.Split(x, ",") {
			items = append(items, strings.TrimSpace(s))
		}
	default:
		items = []any{val}
	}
	op := "IN"
	if !positive {
		op = "NOT IN"
	}
	if len(items) == 0 {
		f := o.leaf(op, store.KindText, nil, func([]any) tri { return boolTri(!positive) })
		f.Values = []any{}
		return f
	}
	kind := o.kind(items[0])
	set := make([]any, len(items))
	for i, it := range items {
		c, ok := coerce(kind, it)
		if !ok {
			return nil
		}
		set[i] = c
	}
	get := o.getter(kind)
	f := o.leaf(op, kind, nil, func(vals []any) tri {
		v := get(vals)
		if v == nil {
			return triNull
		}
		for _, s := range set {
			if compareKind(kind, v, s) == 0 {
				return boolTri(positive)
			}
		}
		return boolTri(!positive)
	})
	f.Values = set
	return f
}

// like compiles LIKE, ILIKE and their negations: % any run, _ one
// character, backslash escapes the next character. Only text, bigint and
// boolean columns (and text paths into json) can match; on numeric,
// timestamp and bare json columns the condition is false.
func (o *operand) like(op, pattern string) *Filter {
	var text func([]any) any
	switch {
	case o.path != nil:
		text = o.getter(store.KindText)
	case o.col.typ == template.TypeString:
		text = o.getter(store.KindText)
	case o.col.typ == template.TypeBigint || o.col.typ == template.TypeBoolean:
		i := o.idx
		text = func(vals []any) any {
			if vals[i] == nil {
				return nil
			}
			return store.JSString(vals[i])
		}
	default:
		return o.leaf(op, store.KindText, pattern, func([]any) tri { return triFalse })
	}
	re := likeRegexp(pattern, strings.Contains(op, "ILIKE"))
	negate := strings.HasPrefix(op, "NOT ")
	return o.leaf(op, store.KindText, pattern, func(vals []any) tri {
		v := text(vals)
		if v == nil {
			return triNull
		}
		return boolTri(re.MatchString(v.(string)) != negate)
	})
}

func likeRegexp(pattern string, fold bool) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("(?s)")
	if fold {
		sb.WriteString("(?i)")
	}
	sb.WriteString("^")
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteString(".")
		case '\\':
			if i+1 < len(rs) {
				i++
				sb.WriteString(regexp.QuoteMeta(string(rs[i])))
			}
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteString("$")
	return regexp.MustCompile(sb.String())
}

// is is IS / IS NOT with null, true or false, as SQL has them: never
// unknown. IS NULL matches a missing value; IS TRUE and IS FALSE match the
// value read as a boolean (a NULL matches neither).
func (o *operand) is(positive bool, want any) *Filter {
	if want == nil {
		return o.isNull(positive)
	}
	op := "IS"
	if !positive {
		op = "IS NOT"
	}
	get := o.getter(store.KindBool)
	return o.leaf(op, store.KindBool, want, func(vals []any) tri {
		v := get(vals)
		return boolTri((v != nil && v == want) == positive)
	})
}

// isNull is IS NULL (null true) or IS NOT NULL: a missing value or key is
// NULL.
func (o *operand) isNull(null bool) *Filter {
	op := "IS NULL"
	if !null {
		op = "IS NOT NULL"
	}
	get := o.getter(store.KindText)
	return o.leaf(op, store.KindText, nil, func(vals []any) tri { return boolTri((get(vals) == nil) == null) })
}
