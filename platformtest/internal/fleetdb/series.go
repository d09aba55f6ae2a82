// This file holds the series reads of the data backend (docs/wire.md §7.7,
// docs/fake.md §3). It serves history.transformed.series.<t> for every declared table
// and error-logs (transforms have no series).
//
// Rows with start ≤ tsp < end (exact milliseconds; end null = now) that
// match the filters fall into buckets of one width from the range start:
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
// Refusals: invalid_time_range (no start, a bound that is not a date, end
// not after start), invalid_metric (unknown column, path into a non-json
// column, secret column, AVG or SUM of a non-numeric column, MIN or MAX of
// a boolean or json column, tsp with a method other than COUNT or with a
// path, a result name over 63 bytes), invalid_group_by (unknown, secret,
// tsp, also a metric, over 63 bytes, path into a non-json column),
// invalid_filter (the latest marker, rule 7 of the seed), and
// series_too_many_groups (over 50 000 answer rows; kwargs tablename, cap).
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
	"regexp"
	"slices"
	"strings"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// seriesGroupCap is the most answer rows of a series read.
const seriesGroupCap = 50000

// maxSeriesName is the longest result or group column name.
const maxSeriesName = 63

var pgNumeric = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// seriesRef is a resolved metric ref or groupBy column.
type seriesRef struct {
	name string
	col  *column
	idx  int
	path []string // below a json column
}

func (s *seriesRef) value(vals []any) any {
	if s.path == nil {
		return vals[s.idx]
	}
	return walkJSON(vals[s.idx], s.path)
}

// out types a value of the ref for the answer.
func (s *seriesRef) out(v any) any {
	if s.path != nil {
		return jsonOut(jsonValue(v))
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
	rows, budget, err := b.series(t, q, h.Clock.Now().UnixMilli())
	if err != nil {
		return err.result()
	}
	return respond(ctx, h, inv, t.name, budget, rows)
}

// series runs a validated series read; rows come back newest first.
func (b *backend) series(t *table, q *seriesQuery, now int64) ([]map[string]any, int, *fleetError) {
	rs, re := timeRangeBounds(q.timeRange)
	if rs == nil {
		return nil, 0, dataRefusal(errInvalidTimeRange, "a series read needs a start")
	}
	start, ok1 := boundMs(rs)
	end, ok2 := now, true
	if re != nil {
		end, ok2 = boundMs(re)
	}
	switch {
	case !ok1 || !ok2:
		return nil, 0, dataRefusal(errInvalidTimeRange, "timeRange %s is not a pair of dates", jsonText(q.timeRange))
	case end <= start:
		return nil, 0, dataRefusal(errInvalidTimeRange, "timeRange: end %d is not after start %d", end, start)
	}
	metrics, err := t.seriesMetrics(q.metrics)
	if err != nil {
		return nil, 0, err
	}
	groupBy, err := t.seriesGroupBy(q.groupBy, metrics)
	if err != nil {
		return nil, 0, err
	}
	fe := t.filterEnv()
	c, err := fe.compile(q.filters, "filterAnd")
	if err != nil {
		return nil, 0, err
	}
	if fe.latest {
		return nil, 0, dataRefusal(errInvalidFilter, "the latest marker (or latest_flag) is not available in series reads")
	}
	span := end - start
	width := int64(math.Ceil(float64(span) / float64(q.limit)))
	if q.bucketMs > 0 {
		n := int64(math.Ceil(float64(span) / float64(q.bucketMs)))
		width = q.bucketMs * max(1, int64(math.Ceil(float64(n)/float64(q.limit))))
	}
	width = max(width, 1)

	b.mu.RLock()
	lo, hi := t.span(timeBound{true, start}, timeBound{true, end})
	b.examined.Add(int64(hi - lo))
	groups := map[string]*seriesGroup{}
	var order []*seriesGroup
	var aggErr *fleetError
	for i := lo; i < hi && aggErr == nil; i++ {
		r := t.rows[i]
		if c != nil && c(r.vals) != triTrue {
			continue
		}
		bucket := (r.tsp - start) / width
		var kb strings.Builder
		kb.WriteString(valueKey(bucket))
		keys := make([]any, len(groupBy))
		for j, g := range groupBy {
			keys[j] = g.value(r.vals)
			kb.WriteString("\x1f" + valueKey(keys[j]))
		}
		g := groups[kb.String()]
		if g == nil {
			if len(groups) >= seriesGroupCap {
				aggErr = dataRefusal(errTooManyGroups, "series of %q: more than %d rows", t.name, seriesGroupCap)
				aggErr.kwargs = map[string]any{"tablename": t.name, "cap": int64(seriesGroupCap)}
				break
			}
			g = &seriesGroup{bucket: start + bucket*width, keys: keys, aggs: make([]seriesAgg, len(metrics))}
			groups[kb.String()] = g
			order = append(order, g)
		}
		for j, m := range metrics {
			if err := g.aggs[j].add(m, r); err != nil {
				aggErr = err
				break
			}
		}
	}
	budget := t.chunkBytes
	b.mu.RUnlock()
	if aggErr != nil {
		return nil, 0, aggErr
	}
	slices.SortFunc(order, func(x, y *seriesGroup) int {
		if c := cmp.Compare(y.bucket, x.bucket); c != 0 {
			return c
		}
		for j := range x.keys {
			if c := compareGroupValues(y.keys[j], x.keys[j]); c != 0 {
				return c
			}
		}
		return 0
	})
	out := make([]map[string]any, len(order))
	for i, g := range order {
		m := map[string]any{"tsp": g.bucket}
		for j, ref := range groupBy {
			m[ref.name] = ref.out(g.keys[j])
		}
		for j, metric := range metrics {
			m[metric.key] = g.aggs[j].result(metric)
		}
		out[i] = m
	}
	return out, budget, nil
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
	if isNumber(a) {
		return cmp.Compare(numberOf(a), numberOf(b))
	}
	return strings.Compare(jsonText(a), jsonText(b))
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
