// This file holds the typed columns of a table: what filters, projections,
// series metrics and groups are built from.

package typed

import (
	"time"

	"github.com/flockgo/ironflock/client"
)

// Field is a column of the table whose row type is R that a query may
// select (Query.Columns). Every column type but SecretColumn is one.
type Field[R any] interface {
	// Name returns the column id.
	Name() string
	field(R)
}

// Group is a column (or JSON path) of the table whose row type is R that a
// series query may group by (SeriesQuery.GroupBy).
type Group[R any] interface {
	// Name returns the column id, or the JSON path.
	Name() string
	group(R)
}

// Column is a column holding values of type V of the table whose row type
// is R: the comparisons every column type has, and its series metrics
// COUNT, FIRST and LAST. NumberColumn, StringColumn and TimeColumn add
// ordering; BoolColumn is a Column[R, bool].
type Column[R, V any] struct{ id string }

// NewColumn returns the column id holding values of type V; V is
// float64, int64, string, bool or time.Time (generated code calls it).
func NewColumn[R, V any](id string) Column[R, V] { return Column[R, V]{id: id} }

// Name returns the column id.
func (c Column[R, V]) Name() string { return c.id }

func (c Column[R, V]) field(R) {}
func (c Column[R, V]) group(R) {}

// Eq is `column = v`.
func (c Column[R, V]) Eq(v V) Filter[R] { return filter[R](client.Where(c.id, "=", v)) }

// Ne is `column != v`; like SQL, it does not hold for NULL.
func (c Column[R, V]) Ne(v V) Filter[R] { return filter[R](client.Where(c.id, "!=", v)) }

// In is `column IN (vs…)`; with no values it matches no row.
func (c Column[R, V]) In(vs ...V) Filter[R] {
	return filter[R](client.Where(c.id, "IN", nonNil(vs)))
}

// NotIn is `column NOT IN (vs…)`; with no values it matches every row
// whose column is not NULL.
func (c Column[R, V]) NotIn(vs ...V) Filter[R] {
	return filter[R](client.Where(c.id, "NOT IN", nonNil(vs)))
}

// nonNil keeps an empty list a list: IN () is the empty set.
func nonNil[V any](vs []V) []V {
	if vs == nil {
		return []V{}
	}
	return vs
}

// IsNull is `column IS NULL`.
func (c Column[R, V]) IsNull() Filter[R] { return filter[R](client.IsNull(c.id)) }

// IsNotNull is `column IS NOT NULL`.
func (c Column[R, V]) IsNotNull() Filter[R] { return filter[R](client.IsNotNull(c.id)) }

// Count is the series metric COUNT: the rows of a bucket whose column is
// not NULL (for tsp: the rows of the bucket).
func (c Column[R, V]) Count() Metric[R, int64] { return newMetric[R, int64](c.id, client.COUNT) }

// First is the series metric FIRST: the value of the bucket's oldest row.
func (c Column[R, V]) First() Metric[R, V] { return newMetric[R, V](c.id, client.FIRST) }

// Last is the series metric LAST: the value of the bucket's newest row.
func (c Column[R, V]) Last() Metric[R, V] { return newMetric[R, V](c.id, client.LAST) }

// Of returns the column's value in a series row grouped by the column
// (SeriesQuery.GroupBy); ok is false when the row holds NULL or no value.
func (c Column[R, V]) Of(b SeriesRow[R]) (v V, ok bool) { return valueOf[V](b.Row, c.id) }

// Ordered is a Column whose values are ordered: numbers, text and times.
type Ordered[R, V any] struct{ Column[R, V] }

// Gt is `column > v`.
func (c Ordered[R, V]) Gt(v V) Filter[R] { return filter[R](client.Where(c.id, ">", v)) }

// Ge is `column >= v`.
func (c Ordered[R, V]) Ge(v V) Filter[R] { return filter[R](client.Where(c.id, ">=", v)) }

// Lt is `column < v`.
func (c Ordered[R, V]) Lt(v V) Filter[R] { return filter[R](client.Where(c.id, "<", v)) }

// Le is `column <= v`.
func (c Ordered[R, V]) Le(v V) Filter[R] { return filter[R](client.Where(c.id, "<=", v)) }

// Between is `from <= column AND column < to`, the half-open range time
// ranges use too.
func (c Ordered[R, V]) Between(from, to V) Filter[R] { return c.Ge(from).And(c.Lt(to)) }

// Min is the series metric MIN.
func (c Ordered[R, V]) Min() Metric[R, V] { return newMetric[R, V](c.id, client.MIN) }

// Max is the series metric MAX.
func (c Ordered[R, V]) Max() Metric[R, V] { return newMetric[R, V](c.id, client.MAX) }

// NumberColumn is a numeric (V float64) or bigint (V int64) column.
type NumberColumn[R any, V float64 | int64] struct{ Ordered[R, V] }

// NewNumberColumn returns the numeric or bigint column id.
func NewNumberColumn[R any, V float64 | int64](id string) NumberColumn[R, V] {
	return NumberColumn[R, V]{Ordered[R, V]{Column[R, V]{id: id}}}
}

// Avg is the series metric AVG.
func (c NumberColumn[R, V]) Avg() Metric[R, float64] { return newMetric[R, float64](c.id, client.AVG) }

// Sum is the series metric SUM.
func (c NumberColumn[R, V]) Sum() Metric[R, float64] { return newMetric[R, float64](c.id, client.SUM) }

// StringColumn is a string column.
type StringColumn[R any] struct{ Ordered[R, string] }

// NewStringColumn returns the string column id.
func NewStringColumn[R any](id string) StringColumn[R] {
	return StringColumn[R]{Ordered[R, string]{Column[R, string]{id: id}}}
}

// Like is `column LIKE pattern` (% any text, _ one character, \ escapes).
func (c StringColumn[R]) Like(pattern string) Filter[R] {
	return filter[R](client.Where(c.id, "LIKE", pattern))
}

// ILike is Like ignoring case.
func (c StringColumn[R]) ILike(pattern string) Filter[R] {
	return filter[R](client.Where(c.id, "ILIKE", pattern))
}

// NotLike is `column NOT LIKE pattern`.
func (c StringColumn[R]) NotLike(pattern string) Filter[R] {
	return filter[R](client.Where(c.id, "NOT LIKE", pattern))
}

// NotILike is NotLike ignoring case.
func (c StringColumn[R]) NotILike(pattern string) Filter[R] {
	return filter[R](client.Where(c.id, "NOT ILIKE", pattern))
}

// TimeColumn is a timestamp column, tsp among them. Time ranges of a
// query (Query.TimeRange) bound tsp; a TimeColumn bounds any other.
type TimeColumn[R any] struct{ Ordered[R, time.Time] }

// NewTimeColumn returns the timestamp column id.
func NewTimeColumn[R any](id string) TimeColumn[R] {
	return TimeColumn[R]{Ordered[R, time.Time]{Column[R, time.Time]{id: id}}}
}

// BoolColumn is a boolean column.
type BoolColumn[R any] struct{ Column[R, bool] }

// NewBoolColumn returns the boolean column id.
func NewBoolColumn[R any](id string) BoolColumn[R] { return BoolColumn[R]{Column[R, bool]{id: id}} }

// JSONColumn is a json column. Filters test it for NULL; Path reaches
// into it for projections, groups and numeric series metrics.
type JSONColumn[R any] struct{ id string }

// NewJSONColumn returns the json column id.
func NewJSONColumn[R any](id string) JSONColumn[R] { return JSONColumn[R]{id: id} }

// Name returns the column id.
func (c JSONColumn[R]) Name() string { return c.id }

func (c JSONColumn[R]) field(R) {}
func (c JSONColumn[R]) group(R) {}

// IsNull is `column IS NULL`.
func (c JSONColumn[R]) IsNull() Filter[R] { return filter[R](client.IsNull(c.id)) }

// IsNotNull is `column IS NOT NULL`.
func (c JSONColumn[R]) IsNotNull() Filter[R] { return filter[R](client.IsNotNull(c.id)) }

// Count is the series metric COUNT of the column.
func (c JSONColumn[R]) Count() Metric[R, int64] { return newMetric[R, int64](c.id, client.COUNT) }

// Path returns the value at path inside the column ("sensor.temp" for
// the column payload is payload.sensor.temp).
func (c JSONColumn[R]) Path(path string) JSONPath[R] { return JSONPath[R]{ref: c.id + "." + path} }

// JSONPath is a path into a json column: a projection of Query.ColumnPaths,
// a group of a series query, and numeric series metrics (the platform
// reads the value as a number).
type JSONPath[R any] struct{ ref string }

// Name returns the path with its column: "payload.sensor.temp".
func (p JSONPath[R]) Name() string { return p.ref }

func (p JSONPath[R]) group(R) {}

// Avg is the series metric AVG of the value at the path.
func (p JSONPath[R]) Avg() Metric[R, float64] { return newMetric[R, float64](p.ref, client.AVG) }

// Sum is the series metric SUM.
func (p JSONPath[R]) Sum() Metric[R, float64] { return newMetric[R, float64](p.ref, client.SUM) }

// Min is the series metric MIN.
func (p JSONPath[R]) Min() Metric[R, float64] { return newMetric[R, float64](p.ref, client.MIN) }

// Max is the series metric MAX.
func (p JSONPath[R]) Max() Metric[R, float64] { return newMetric[R, float64](p.ref, client.MAX) }

// SecretColumn is a secret column: the platform refuses filters, series
// and groups over it, so it has none; Table.Verify checks a candidate
// against it.
type SecretColumn[R any] struct{ id string }

// NewSecretColumn returns the secret column id.
func NewSecretColumn[R any](id string) SecretColumn[R] { return SecretColumn[R]{id: id} }

// Name returns the column id.
func (c SecretColumn[R]) Name() string { return c.id }

func (c SecretColumn[R]) field(R) {}
