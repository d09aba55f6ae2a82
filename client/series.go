// This file holds series reads: Metric, SeriesQuery and GetSeriesHistory.

package client

import (
	"context"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Aggregation methods of series queries (upper case, as the data backend
// requires).
const (
	AVG   = "AVG"
	SUM   = "SUM"
	COUNT = "COUNT"
	MIN   = "MIN"
	MAX   = "MAX"
	FIRST = "FIRST"
	LAST  = "LAST"
)

// Metric is one aggregated value per bucket: Method over Ref, a column or a
// JSON path into a json column ("payload.temp"). It comes back in the row
// under "<METHOD>:<ref>".
type Metric struct {
	Ref    string
	Method string
}

// SeriesQuery selects down-sampled series for GetSeriesHistory. Give the
// metrics either as Metrics (one method each) or, in the seed's form, as
// Columns with one Method; both may be combined.
type SeriesQuery struct {
	Metrics []Metric
	Columns []string
	Method  string
	// Limit is the bucket budget, 1–10000 (required).
	Limit int
	// TimeRange is always sent. An open start (nil) reads from the
	// table's first row; an open end means now.
	TimeRange TimeRange
	// Bucket is the bucket width (whole milliseconds, at least 1 s); zero
	// divides the range into Limit buckets.
	Bucket time.Duration
	// GroupBy adds a row per bucket and value of these columns.
	GroupBy []string
	// FilterAnd holds conditions; the latest marker is not available here.
	FilterAnd []Filter
}

const maxSeriesName = 63

func (q *SeriesQuery) wire(op string, warn func(string)) (map[string]any, error) {
	var metrics []any
	add := func(ref, method, field string) error {
		if ref == "" {
			return invalidArg(op, field, "the metric reference is empty")
		}
		switch method {
		case AVG, SUM, COUNT, MIN, MAX, FIRST, LAST:
		default:
			return invalidArg(op, field, "method %q is not one of AVG, SUM, COUNT, MIN, MAX, FIRST, LAST (upper case)", method)
		}
		if n := len(method) + 1 + len(ref); n > maxSeriesName {
			return invalidArg(op, field, "the result column %q is %d bytes; at most %d are allowed", method+":"+ref, n, maxSeriesName)
		}
		metrics = append(metrics, map[string]any{"ref": ref, "method": method})
		return nil
	}
	for i, m := range q.Metrics {
		if err := add(m.Ref, m.Method, "metrics["+strconv.Itoa(i)+"]"); err != nil {
			return nil, err
		}
	}
	for i, col := range q.Columns {
		if err := add(col, q.Method, "columns["+strconv.Itoa(i)+"]"); err != nil {
			return nil, err
		}
	}
	if len(metrics) == 0 {
		return nil, invalidArg(op, "metrics", "a series query needs at least one metric")
	}
	if q.Limit < 1 || q.Limit > MaxHistoryLimit {
		return nil, invalidArg(op, "limit", "limit %d is outside 1…%d (it is the number of buckets)", q.Limit, MaxHistoryLimit)
	}
	tr, err := q.TimeRange.wire("timeRange")
	if err != nil {
		return nil, invalidArg(op, "timeRange", "%v", err)
	}
	p := map[string]any{"metrics": metrics, "limit": int64(q.Limit), "timeRange": tr}
	if q.Bucket != 0 {
		if q.Bucket < time.Second || q.Bucket%time.Millisecond != 0 {
			return nil, invalidArg(op, "bucket", "bucket %v must be whole milliseconds and at least 1s", q.Bucket)
		}
		p["bucketMs"] = q.Bucket.Milliseconds()
	}
	if len(q.GroupBy) > 0 {
		cols, err := nameList(q.GroupBy, "groupBy")
		if err != nil {
			return nil, invalidArg(op, "groupBy", "%v", err)
		}
		p["groupBy"] = cols
	}
	if len(q.FilterAnd) > 0 {
		if containsLatest(q.FilterAnd) {
			return nil, invalidArg(op, "filterAnd", "the latest marker (or latest_flag) is not available in series queries")
		}
		nodes, err := filterNodes(q.FilterAnd, warn)
		if err != nil {
			return nil, invalidArg(op, "filterAnd", "%v", err)
		}
		p["filterAnd"] = nodes
	}
	return p, nil
}

// GetSeriesHistory reads down-sampled series of a table: one row per time
// bucket (and group), {"tsp": bucket start, "<METHOD>:<ref>": value, …},
// in ascending bucket order; empty buckets are absent. Not available for
// transforms.
func (c *Client) GetSeriesHistory(ctx context.Context, table string, q SeriesQuery) ([]Row, error) {
	const op = "GetSeriesHistory"
	if err := checkReadTable(op, table); err != nil {
		return nil, err
	}
	payload, err := q.wire(op, c.warnFunc(op, table))
	if err != nil {
		return nil, err
	}
	return c.readRows(ctx, op, table, wire.SeriesProc(table), payload)
}
