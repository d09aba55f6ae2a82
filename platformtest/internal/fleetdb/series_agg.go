// This file holds the aggregates of series reads (docs/wire.md §7.7, docs/fake.md §3) for
// history.transformed.series.<t>: COUNT, AVG, SUM, MIN, MAX, FIRST and
// LAST over the rows of one bucket and group.

package fleetdb

import (
	"math"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// seriesGroup is one answer row being built.
type seriesGroup struct {
	bucket int64
	keys   []any
	aggs   []seriesAgg
}

// seriesAgg is the state of one metric in one group.
type seriesAgg struct {
	count   int64 // non-null values
	sum     float64
	sumInt  int64 // exact sum of a bigint column
	min     any
	max     any
	first   any
	last    any
	started bool
}

// add folds a row into the aggregate; rows come in (tsp, sequence) order.
func (a *seriesAgg) add(m *seriesMetric, r *row) *fleetError {
	v := m.value(r.vals)
	if !a.started {
		a.first, a.started = v, true
	}
	a.last = v
	if v == nil {
		return nil
	}
	if m.numeric {
		f, ok := castNumeric(v)
		if !ok {
			return pgError(pgInvalidTextRep)
		}
		v = f
	}
	a.count++
	switch m.method {
	case "AVG", "SUM":
		if x, ok := v.(int64); ok {
			a.sumInt += x
		}
		a.sum += numberOf(v)
	case "MIN":
		if a.min == nil || lessValue(v, a.min) {
			a.min = v
		}
	case "MAX":
		if a.max == nil || lessValue(a.max, v) {
			a.max = v
		}
	}
	return nil
}

// castNumeric casts a json value to numeric as Postgres does.
func castNumeric(v any) (float64, bool) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if !pgNumeric.MatchString(s) {
			return 0, false
		}
		return jsNumberText(s), true
	}
	if isNumber(v) {
		return numberOf(v), true
	}
	return 0, false
}

// lessValue orders two non-null values of one column type.
func lessValue(a, b any) bool {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return x < y
		}
	case string:
		if y, ok := b.(string); ok {
			return x < y
		}
	}
	return numberOf(a) < numberOf(b)
}

// result is the aggregate's answer value.
func (a *seriesAgg) result(m *seriesMetric) any {
	switch m.method {
	case "COUNT":
		return a.count // tsp is never NULL: COUNT of tsp counts rows
	case "FIRST":
		return m.out(a.first)
	case "LAST":
		return m.out(a.last)
	}
	if a.count == 0 {
		return nil
	}
	switch m.method {
	case "AVG":
		return numberOut(a.sum / float64(a.count))
	case "SUM":
		if m.path == nil && m.col.typ == template.TypeBigint {
			return a.sumInt
		}
		return numberOut(a.sum)
	case "MIN":
		return a.typed(m, a.min)
	}
	return a.typed(m, a.max)
}

func (a *seriesAgg) typed(m *seriesMetric, v any) any {
	if f, ok := v.(float64); ok && (m.numeric || m.col.typ == template.TypeNumeric) {
		if math.IsNaN(f) {
			return nil
		}
		return numberOut(f)
	}
	return m.out(v)
}
