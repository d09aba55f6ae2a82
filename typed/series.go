// This file holds the series side of the typed tables: metrics, the
// series query and its rows.

package typed

import (
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
)

// Measure is a series metric of the table whose row type is R, whatever
// the type of its values: the element type of SeriesQuery.Metrics. Every
// Metric is one.
type Measure[R any] interface {
	// Metric returns the metric in the form of package client.
	Metric() client.Metric
	check(b SeriesRow[R]) error
}

// Metric is a series metric whose values are of type V: a method (AVG,
// SUM, COUNT, MIN, MAX, FIRST, LAST) over a column or a JSON path. Columns
// make them (Readings.Temperature.Avg()); Of reads the metric's value in
// a row of the answer.
type Metric[R, V any] struct{ ref, method string }

func newMetric[R, V any](ref, method string) Metric[R, V] {
	return Metric[R, V]{ref: ref, method: method}
}

// Metric returns the metric in the form of package client.
func (m Metric[R, V]) Metric() client.Metric { return client.Metric{Ref: m.ref, Method: m.method} }

// Key returns the name of the metric's value in a series row:
// "<METHOD>:<ref>", as the platform names it.
func (m Metric[R, V]) Key() string { return m.method + ":" + m.ref }

// Of returns the metric's value in b; ok is false when the bucket holds
// NULL (no row had a value) or the query did not ask for the metric.
func (m Metric[R, V]) Of(b SeriesRow[R]) (v V, ok bool) { return valueOf[V](b.Row, m.Key()) }

func (m Metric[R, V]) check(b SeriesRow[R]) error { return checkValue[V](b.Row, m.Key()) }

// checkValue reports a value of key in row that is not a V.
func checkValue[V any](row client.Row, key string) error {
	if x, ok := row[key]; ok && x != nil {
		_, err := decodeAs[V](x, key)
		return err
	}
	return nil
}

// SeriesQuery selects a down-sampled series of the table whose row type
// is R, for Table.Series: the query of client.GetSeriesHistory with typed
// metrics, groups and filter.
type SeriesQuery[R any] struct {
	// Metrics are the values per bucket; at least one.
	Metrics []Measure[R]
	// Limit is the bucket budget, 1–10000 (required).
	Limit int
	// TimeRange is required and needs a start; an open end means now.
	TimeRange client.TimeRange
	// Bucket is the bucket width (whole milliseconds, at least 1 s); zero
	// divides the range into Limit buckets.
	Bucket time.Duration
	// GroupBy adds a row per bucket and value of these columns.
	GroupBy []Group[R]
	// Where selects the rows that count; the latest marker is refused.
	Where Filter[R]
}

// client returns q in the form of package client.
func (q SeriesQuery[R]) client() client.SeriesQuery {
	out := client.SeriesQuery{Limit: q.Limit, TimeRange: q.TimeRange, Bucket: q.Bucket, FilterAnd: q.Where.Filters()}
	for _, m := range q.Metrics {
		if m != nil {
			out.Metrics = append(out.Metrics, m.Metric())
		}
	}
	for _, g := range q.GroupBy {
		if g != nil {
			out.GroupBy = append(out.GroupBy, g.Name())
		}
	}
	return out
}

// SeriesRow is one bucket (and group) of a series answer. The metrics'
// Of and the grouped columns' Of read its values.
type SeriesRow[R any] struct {
	// Tsp is the start of the bucket.
	Tsp time.Time
	// Row is the bucket as the platform sent it: tsp in epoch
	// milliseconds, the groups' values and "<METHOD>:<ref>" per metric.
	Row client.Row
}

// seriesRows converts the answer, checking that every metric and group of
// q has a value of its type in every row.
func seriesRows[R any](rows []client.Row, q SeriesQuery[R]) ([]SeriesRow[R], error) {
	out := make([]SeriesRow[R], len(rows))
	for i, r := range rows {
		at, err := client.DecodeTime(r["tsp"], "tsp")
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		out[i] = SeriesRow[R]{Tsp: at, Row: r}
		for _, m := range q.Metrics {
			if m == nil {
				continue
			}
			if err := m.check(out[i]); err != nil {
				return nil, fmt.Errorf("row %d: %w", i, err)
			}
		}
	}
	return out, nil
}
