// This file holds the aggregates of series reads (docs/wire.md §7.7,
// docs/fake.md §3) for history.transformed.series.<t>: SeriesBuilder, the
// reference semantics of a SeriesQuery for stores that read rows in Go,
// folds rows into buckets and groups with COUNT, AVG, SUM, MIN, MAX, FIRST
// and LAST. It serves no URI.

package store

import (
	"regexp"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// SeriesBuilder folds the rows of a SeriesQuery's range into its groups.
// Give it the rows with Start ≤ tsp < End in (tsp, sequence) order; it
// applies the query's filter itself.
type SeriesBuilder struct {
	t      *TableSchema
	q      *SeriesQuery
	groups map[string]*seriesGroup
	order  []*seriesGroup
	key    strings.Builder
}

// NewSeriesBuilder returns a builder for q on a table of schema t, with no
// rows yet.
func NewSeriesBuilder(t *TableSchema, q *SeriesQuery) *SeriesBuilder {
	return &SeriesBuilder{t: t, q: q, groups: map[string]*seriesGroup{}}
}

// seriesGroup is one answer row being built.
type seriesGroup struct {
	bucket int64
	keys   []any
	aggs   []seriesAgg
}

// Add folds a row into its group. It fails with ErrTooManyGroups when the
// row would make a group beyond MaxGroups, and with SQLSTATE 22P02 when a
// numeric cast fails.
func (b *SeriesBuilder) Add(vals []any) error {
	q := b.q
	if !q.Filter.Match(vals) {
		return nil
	}
	bucket := (vals[b.t.TSP].(int64) - q.Start) / q.Width
	b.key.Reset()
	b.key.WriteString(ValueKey(bucket))
	var keys []any
	if len(q.GroupBy) > 0 {
		keys = make([]any, len(q.GroupBy))
		for j := range q.GroupBy {
			keys[j] = q.GroupBy[j].Value(vals)
			b.key.WriteString("\x1f" + ValueKey(keys[j]))
		}
	}
	g := b.groups[b.key.String()]
	if g == nil {
		if len(b.groups) >= q.MaxGroups {
			return ErrTooManyGroups
		}
		g = &seriesGroup{bucket: q.Start + bucket*q.Width, keys: keys, aggs: make([]seriesAgg, len(q.Metrics))}
		b.groups[b.key.String()] = g
		b.order = append(b.order, g)
	}
	for j := range q.Metrics {
		if err := g.aggs[j].add(&q.Metrics[j], vals); err != nil {
			return err
		}
	}
	return nil
}

// Groups returns the groups made so far, in the order of their first row.
func (b *SeriesBuilder) Groups() []SeriesGroup {
	out := make([]SeriesGroup, len(b.order))
	for i, g := range b.order {
		vals := make([]any, len(g.aggs))
		for j := range g.aggs {
			m := &b.q.Metrics[j]
			vals[j] = g.aggs[j].result(m, m.Path == nil && b.t.Columns[m.Col].Type == template.TypeBigint)
		}
		out[i] = SeriesGroup{Bucket: g.bucket, Keys: g.keys, Values: vals}
	}
	return out
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
func (a *seriesAgg) add(m *SeriesMetric, vals []any) error {
	v := m.Value(vals)
	if !a.started {
		a.first, a.started = v, true
	}
	a.last = v
	if v == nil {
		return nil
	}
	if m.Numeric {
		f, ok := castNumeric(v)
		if !ok {
			return &SQLError{Code: CodeInvalidTextRep, Msg: "invalid input syntax for type numeric"}
		}
		v = f
	}
	a.count++
	switch m.Method {
	case "AVG", "SUM":
		if x, ok := v.(int64); ok {
			a.sumInt += x
		}
		a.sum += NumberOf(v)
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

// pgNumeric is the text PostgreSQL casts to numeric.
var pgNumeric = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// castNumeric casts a json value to numeric as Postgres does.
func castNumeric(v any) (float64, bool) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if !pgNumeric.MatchString(s) {
			return 0, false
		}
		return JSNumberText(s), true
	}
	if IsNumber(v) {
		return NumberOf(v), true
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
	return NumberOf(a) < NumberOf(b)
}

// result is the aggregate's value in the forms SeriesGroup describes.
// A SUM of a bigint column (exact) is an int64.
func (a *seriesAgg) result(m *SeriesMetric, exact bool) any {
	switch m.Method {
	case "COUNT":
		return a.count // tsp is never NULL: COUNT of tsp counts rows
	case "FIRST":
		return a.first
	case "LAST":
		return a.last
	}
	if a.count == 0 {
		return nil
	}
	switch m.Method {
	case "AVG":
		return a.sum / float64(a.count)
	case "SUM":
		if exact {
			return a.sumInt
		}
		return a.sum
	case "MIN":
		return a.min
	}
	return a.max
}
