// This file holds the series reads of the data backend (docs/wire.md §7.7,
// docs/fake.md §3). It serves history.transformed.series.<t> for every declared table
// and error-logs (transforms have no series).
//
// Rows with start ≤ tsp < end (exact milliseconds; start null = the tsp of
// the table's first row, end null = now) that match the filters fall into
// buckets of one width from the range start:
// bucketMs × max(1, ceil(ceil(span / bucketMs) / limit)), or
// ceil(span / limit) without bucketMs, so there are at most limit buckets.
// One answer row per bucket and groupBy value combination:
// {"tsp": bucket start, <groupBy column>: value…, "<METHOD>:<ref>": value…};
// empty buckets are absent. COUNT counts non-null values (COUNT of tsp
// counts rows), AVG and SUM add numbers, MIN and MAX compare in the
// column's type, FIRST and LAST take the value of the oldest and newest
// row by (tsp, sequence), even a null one. A path into a json column is
// cast to numeric for AVG, SUM, MIN and MAX (a value that is not a number
// fails like Postgres, 22P02). The same method and ref twice are computed
// once.
//
// Refusals: invalid_time_range (a bound that is not a date, end not after
// an explicit start), invalid_metric (unknown column, path into a non-json
// column, secret column, AVG or SUM of a non-numeric column, MIN or MAX of
// a boolean or json column, tsp with a method other than COUNT or with a
// path, a result name over 63 bytes), invalid_group_by (unknown, secret,
// tsp, also a metric, over 63 bytes, path into a non-json column),
// invalid_filter (the latest marker, rule 7 of the seed), and
// series_too_many_groups (over 50 000 answer rows; kwargs tablename, cap).
//
// With an open start, an empty table, or one whose first row is not
// before the end, answers no rows (the seed's rule leaves no range to
// refuse).
//
// The store buckets and aggregates (SeriesQuery, query.go); the answer's
// order and typing are done here, the same for every store.
//
// Order: docs/wire.md §7.7 says groups ascend within a bucket in the answer
// while docs/fake.md §3 describes the harness as sorting groups ascending before the
// final reversal; the fake follows §7.7 (buckets and groups ascending, NULL
// groups last).

package fleetdb

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// seriesGroupCap is the most answer rows of a series read.
const seriesGroupCap = 50000

// maxSeriesName is the longest result or group column name.
const maxSeriesName = 63

// seriesRef is a resolved metric ref or groupBy column.
type seriesRef struct {
	name string
	col  *column
	idx  int
	path []string // below a json column
}

// stored is the ref as a store reads it.
func (s *seriesRef) stored() SeriesRef { return SeriesRef{Col: s.idx, Path: s.path} }

// out types a value of the ref for the answer.
func (s *seriesRef) out(v any) any {
	if s.path != nil {
		return store.JSONOut(store.JSONValue(v))
	}
	return outValue(s.col.typ, false, v)
}

type seriesMetric struct {
	seriesRef
	key     string // "<METHOD>:<ref>"
	method  string
	numeric bool // cast numeric (json path with AVG, SUM, MIN, MAX)
}

// resolveRef finds a column or a path into a json column.
func (t *table) resolveRef(ref string) (*seriesRef, string) {
	if i, ok := t.byID[ref]; ok {
		return &seriesRef{name: ref, col: &t.cols[i], idx: i}, ""
	}
	keys, err := template.PathKeys(ref)
	if err != nil || len(keys) < 2 {
		return nil, "unknown column"
	}
	i, ok := t.byID[keys[0]]
	switch {
	case !ok:
		return nil, "unknown column"
	case t.cols[i].typ != template.TypeJSON:
		return nil, "path into the non-json column " + keys[0]
	}
	return &seriesRef{name: ref, col: &t.cols[i], idx: i, path: keys[1:]}, ""
}

func (t *table) seriesMetrics(specs []seriesMetricSpec) ([]*seriesMetric, *fleetError) {
	var out []*seriesMetric
	seen := map[string]bool{}
	for _, s := range specs {
		key := s.method + ":" + s.ref
		if seen[key] {
			continue
		}
		seen[key] = true
		bad := func(why string) *fleetError {
			return dataRefusal(errInvalidMetric, "metric %s of %q: %s", key, t.name, why)
		}
		if len(key) > maxSeriesName {
			return nil, bad("the result name is longer than 63 bytes")
		}
		ref, why := t.resolveRef(s.ref)
		if ref == nil {
			return nil, bad(why)
		}
		typ := ref.col.typ
		numericType := typ == template.TypeNumeric || typ == template.TypeBigint
		switch {
		case ref.col.secret:
			return nil, bad("the column is secret")
		case ref.idx == t.tsp && (s.method != "COUNT" || ref.path != nil):
			return nil, bad("tsp only takes COUNT")
		case (s.method == "AVG" || s.method == "SUM") && ref.path == nil && !numericType:
			return nil, bad(s.method + " needs a numeric column")
		case (s.method == "MIN" || s.method == "MAX") && ref.path == nil && (typ == template.TypeBoolean || typ == template.TypeJSON):
			return nil, bad(s.method + " does not apply to " + string(typ) + " columns")
		}
		numeric := ref.path != nil && s.method != "COUNT" && s.method != "FIRST" && s.method != "LAST"
		out = append(out, &seriesMetric{seriesRef: *ref, key: key, method: s.method, numeric: numeric})
	}
	return out, nil
}

func (t *table) seriesGroupBy(cols []string, metrics []*seriesMetric) ([]*seriesRef, *fleetError) {
	var out []*seriesRef
	for _, g := range cols {
		bad := func(why string) *fleetError {
			return dataRefusal(errInvalidGroupBy, "groupBy %q of %q: %s", g, t.name, why)
		}
		if len(g) > maxSeriesName {
			return nil, bad("longer than 63 bytes")
		}
		ref, why := t.resolveRef(g)
		switch {
		case ref == nil:
			return nil, bad(why)
		case ref.col.secret:
			return nil, bad("the column is secret")
		case ref.idx == t.tsp && ref.path == nil:
			return nil, bad("tsp is the bucket")
		}
		for _, m := range metrics {
			if m.name == g {
				return nil, bad("it is also a metric")
			}
		}
		out = append(out, ref)
	}
	return out, nil
}

func (b *backend) serveSeries(ctx context.Context, h *realm.Host, t *table, inv *wamp.Invocation) client.InvokeResult {
	if denied(inv, t.private || t.system) {
		return notAuthorized(t.name)
	}
	q, err := validateSeries(wirevalue.CloneList(inv.Arguments))
	if err != nil {
		return err.result()
	}
	rows, err := b.series(ctx, t, q, h.Clock.Now().UnixMilli())
	if err != nil {
		logStoreFailure(h, "series", t.name, err)
		return err.result()
	}
	return respond(ctx, h, inv, t.name, int(t.chunkBytes.Load()), rows)
}

// series runs a validated series read; rows come back newest first.
func (b *backend) series(ctx context.Context, t *table, q *seriesQuery, now int64) ([]map[string]any, *fleetError) {
	rs, re := timeRangeBounds(q.timeRange)
	start, ok1 := int64(0), true
	if rs != nil {
		start, ok1 = boundMs(rs)
	}
	end, ok2 := now, true
	if re != nil {
		end, ok2 = boundMs(re)
	}
	switch {
	case !ok1 || !ok2:
		return nil, dataRefusal(errInvalidTimeRange, "timeRange %s is not a pair of dates", store.JSONText(q.timeRange))
	case rs != nil && end <= start:
		return nil, dataRefusal(errInvalidTimeRange, "timeRange: end %d is not after start %d", end, start)
	}
	metrics, err := t.seriesMetrics(q.metrics)
	if err != nil {
		return nil, err
	}
	groupBy, err := t.seriesGroupBy(q.groupBy, metrics)
	if err != nil {
		return nil, err
	}
	fe := t.filterEnv()
	f, err := fe.compile(q.filters, "filterAnd")
	if err != nil {
		return nil, err
	}
	if fe.latest {
		return nil, dataRefusal(errInvalidFilter, "the latest marker (or latest_flag) is not available in series reads")
	}
	if rs == nil { // from the table's first row
		oldest, _, ok, serr := b.store.Span(ctx, t.name)
		if serr != nil {
			return nil, storeError(t.name, serr)
		}
		if !ok || oldest >= end {
			return []map[string]any{}, nil
		}
		start = oldest
	}
	span := end - start
	width := int64(math.Ceil(float64(span) / float64(q.limit)))
	if q.bucketMs > 0 {
		n := int64(math.Ceil(float64(span) / float64(q.bucketMs)))
		width = q.bucketMs * max(1, int64(math.Ceil(float64(n)/float64(q.limit))))
	}
	sq := &SeriesQuery{Start: start, End: end, Width: max(width, 1), Filter: f, MaxGroups: seriesGroupCap,
		GroupBy: make([]SeriesRef, len(groupBy)), Metrics: make([]SeriesMetric, len(metrics))}
	for i, g := range groupBy {
		sq.GroupBy[i] = g.stored()
	}
	for i, m := range metrics {
		sq.Metrics[i] = SeriesMetric{SeriesRef: m.stored(), Method: m.method, Numeric: m.numeric}
	}
	groups, serr := b.store.Series(ctx, t.name, sq)
	if serr != nil {
		return nil, storeError(t.name, serr)
	}
	slices.SortFunc(groups, func(x, y SeriesGroup) int {
		if c := cmp.Compare(y.Bucket, x.Bucket); c != 0 {
			return c
		}
		for j := range x.Keys {
			if c := compareGroupValues(y.Keys[j], x.Keys[j]); c != 0 {
				return c
			}
		}
		return 0
	})
	out := make([]map[string]any, len(groups))
	for i, g := range groups {
		m := make(map[string]any, 1+len(groupBy)+len(metrics))
		m["tsp"] = store.ISOTime(g.Bucket)
		for j, ref := range groupBy {
			m[ref.name] = ref.out(g.Keys[j])
		}
		for j, metric := range metrics {
			m[metric.key] = metric.result(g.Values[j])
		}
		out[i] = m
	}
	return out, nil
}

// result types a metric's aggregate (SeriesGroup) for the answer: numbers
// as JavaScript sends them, NaN as null, values of a column in its type.
func (m *seriesMetric) result(v any) any {
	switch m.method {
	case "COUNT":
		return v
	case "FIRST", "LAST":
		return m.out(v)
	}
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		if m.method == "SUM" {
			return x
		}
	case float64:
		if m.method == "AVG" || m.method == "SUM" || m.numeric || m.col.typ == template.TypeNumeric {
			if math.IsNaN(x) {
				return nil
			}
			return store.NumberOut(x)
		}
	}
	return m.out(v)
}

// compareGroupValues orders group values ascending with NULL last. Values
// of one column share a type; values of a json path follow jsonb's order:
// strings, numbers, booleans, arrays, objects.
func compareGroupValues(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	if c := cmp.Compare(jsonRank(a), jsonRank(b)); c != 0 {
		return c
	}
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		return cmp.Compare(boolRank(x), boolRank(b.(bool)))
	}
	if store.IsNumber(a) {
		return cmp.Compare(store.NumberOf(a), store.NumberOf(b))
	}
	return strings.Compare(store.JSONText(a), store.JSONText(b))
}

// jsonRank is the rank of a value's type in jsonb's order.
func jsonRank(v any) int {
	switch v.(type) {
	case string:
		return 1
	case bool:
		return 3
	case []any:
		return 4
	case map[string]any:
		return 5
	}
	return 2 // numbers
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
