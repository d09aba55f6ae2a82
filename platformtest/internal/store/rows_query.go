// This file holds the queries a Store answers (store.go): a table read, a
// series read and a transform read, validated and typed by the DB from
// the wire's payloads (validate.go, filter.go, history.go, series.go), so
// that a store only selects and aggregates. It serves no URI.

package store

// Bound is one bound of a time range; an unset bound is open.
type Bound struct {
	Set bool
	Ms  int64 // epoch milliseconds
}

// ReadQuery is a table read (history.transformed.<t>, reveal, verify).
//
// Without Latest: the rows with Start ≤ tsp < End that match Filter,
// newest first by (tsp, sequence), skipping Offset, at most Limit.
//
// With Latest, the seed's latest marker (docs/wire.md §7.5):
//
//  1. only the newest row per entity is read;
//  2. the entity is the table's entity key (DISTINCT ON the
//     maintainLatestFlagFor columns); rows whose key holds NULL form one
//     entity per distinct key, NULL equal to NULL, as DISTINCT ON groups
//     them;
//  3. a table without entity key has one entity: its single newest row;
//  4. conditions on entity-key columns narrow the entities;
//  5. every other condition and the time range apply to the newest rows,
//     so an entity whose newest row does not match (a deleted one)
//     disappears instead of showing an older row; on a table without
//     entity key a newest row that does not match leaves the answer empty;
//
// then newest first, Offset and Limit as without Latest (a table without
// entity key ignores Offset: it has one row at most). Rules 6 and 7 (the
// legacy latest_flag condition is the marker; series refuse it) are the
// DB's, before the store.
type ReadQuery struct {
	Start, End Bound
	// Filter holds the conditions of filterAnd; nil is none.
	Filter *Filter
	Latest bool
	Offset int64
	Limit  int64
	// Columns is the projection: the indexes of the columns the DB uses,
	// ascending; nil is every column. A store may return other columns
	// too (or nil in their place).
	Columns []int
}

// SeriesQuery is a series read (history.transformed.series.<t>): the rows
// with Start ≤ tsp < End that match Filter fall into buckets of Width
// milliseconds counted from Start; one SeriesGroup per bucket and
// distinct GroupBy values (NULL equal to NULL). A group is made by its
// first row; more than MaxGroups groups fail with ErrTooManyGroups.
type SeriesQuery struct {
	Start, End int64 // epoch milliseconds, Start < End
	Width      int64 // ≥ 1
	Filter     *Filter
	GroupBy    []SeriesRef
	Metrics    []SeriesMetric
	MaxGroups  int
}

// SeriesRef is a column, or a path into a json column (the value at the
// path, nil when a key is missing).
type SeriesRef struct {
	Col  int
	Path []string
}

// Value returns the ref's value in a row.
func (r *SeriesRef) Value(vals []any) any {
	if r.Path == nil {
		return vals[r.Col]
	}
	return WalkJSON(vals[r.Col], r.Path)
}

// SeriesMetric is one aggregate: Method (COUNT, AVG, SUM, MIN, MAX, FIRST,
// LAST) over a ref. Numeric casts the values of a json path to numeric
// first, as Postgres does (AVG, SUM, MIN and MAX of a path): a number, or
// a text that reads as one; anything else fails the read with SQLSTATE
// 22P02.
type SeriesMetric struct {
	SeriesRef
	Method  string
	Numeric bool
}

// SeriesGroup is one answer row of a series read: the bucket's start
// (Start + n × Width), the GroupBy values and one value per metric:
//
//   - COUNT: int64, the non-null values (COUNT of tsp counts rows);
//   - AVG: float64; SUM: int64 for a bigint column, float64 otherwise;
//   - MIN and MAX: the smallest and largest value in the column's order
//     (float64 for a numeric cast);
//   - FIRST and LAST: the value of the oldest and newest row by (tsp,
//     sequence), even a NULL;
//
// AVG, SUM, MIN and MAX are nil when the group has no non-null value.
type SeriesGroup struct {
	Bucket int64
	Keys   []any
	Values []any
}

// TransformQuery is a transform read (history.transformed.<transform>):
// the view's rows that match Filter (on its declared columns), in the
// view's order, skipping Offset, at most Limit.
type TransformQuery struct {
	Filter *Filter
	Offset int64
	Limit  int64
}

// TransformPage gathers the answer of a TransformQuery from a store that
// reads a transform's rows in Go: Add is offered the rows in the view's
// order until it reports that the page is full.
type TransformPage struct {
	q    *TransformQuery
	cols []Column
	vals []any
	skip int64
	Rows []map[string]any
}

// NewTransformPage starts the page of q on a transform with the declared
// columns cols.
func NewTransformPage(q *TransformQuery, cols []Column) *TransformPage {
	return &TransformPage{q: q, cols: cols, vals: make([]any, len(cols)), skip: q.Offset}
}

// Add offers the next row of the view and reports whether more are
// wanted.
func (p *TransformPage) Add(r map[string]any) bool {
	if int64(len(p.Rows)) >= p.q.Limit {
		return false
	}
	if p.q.Filter != nil {
		for i, c := range p.cols {
			p.vals[i] = r[c.ID]
		}
		if !p.q.Filter.Match(p.vals) {
			return true
		}
	}
	if p.skip > 0 {
		p.skip--
		return true
	}
	p.Rows = append(p.Rows, r)
	return int64(len(p.Rows)) < p.q.Limit
}

// InRange reports start ≤ tsp < end.
func InRange(tsp int64, start, end Bound) bool {
	return (!start.Set || tsp >= start.Ms) && (!end.Set || tsp < end.Ms)
}
