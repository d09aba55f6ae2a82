package fleetdb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

func metric(ref, method string) map[string]any { return worldtest.Q("ref", ref, "method", method) }

func (f *dbFixture) series(t *testing.T, table string, query map[string]any) []map[string]any {
	t.Helper()
	return worldtest.Call(t, f.c, "history.transformed.series."+table, query, nil, false).OK(t, "series of "+table).Rows(t)
}

// TestSeriesBuckets: buckets start at the range start, their width
// follows bucketMs and limit, empty buckets are absent, rows are
// ascending, the range is exact to the millisecond.
func TestSeriesBuckets(t *testing.T) { backends.EachStore(t, testSeriesBuckets) }

func testSeriesBuckets(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	for _, d := range []time.Duration{-time.Second, 0, 30 * time.Second, 7 * time.Minute, 59*time.Minute + 59*time.Second, time.Hour} {
		f.insert(t, "readings", map[string]any{"tsp": worldtest.T0.Add(d), "temp": 1})
	}
	count := metric("tsp", "COUNT")
	cases := []struct {
		name  string
		query map[string]any
		want  []map[string]any
	}{
		{"bucketMs widened to the limit", worldtest.Q("metrics", worldtest.List(count), "limit", 10, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour)), "bucketMs", 60000),
			[]map[string]any{{"tsp": worldtest.ISO(0), "COUNT:tsp": int64(2)}, {"tsp": worldtest.ISO(6 * time.Minute), "COUNT:tsp": int64(1)}, {"tsp": worldtest.ISO(54 * time.Minute), "COUNT:tsp": int64(1)}}},
		{"bucketMs kept", worldtest.Q("metrics", worldtest.List(count), "limit", 100, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour)), "bucketMs", 60000),
			[]map[string]any{{"tsp": worldtest.ISO(0), "COUNT:tsp": int64(2)}, {"tsp": worldtest.ISO(7 * time.Minute), "COUNT:tsp": int64(1)}, {"tsp": worldtest.ISO(59 * time.Minute), "COUNT:tsp": int64(1)}}},
		{"range divided by limit", worldtest.Q("metrics", worldtest.List(count), "limit", 2, "timeRange", worldtest.List("2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z")),
			[]map[string]any{{"tsp": worldtest.ISO(0), "COUNT:tsp": int64(3)}, {"tsp": worldtest.ISO(30 * time.Minute), "COUNT:tsp": int64(1)}}},
		{"origin at the start, exact ms", worldtest.Q("metrics", worldtest.List(count), "limit", 1, "timeRange", worldtest.List(worldtest.Ms(30*time.Second), worldtest.Ms(30*time.Second+time.Millisecond))),
			[]map[string]any{{"tsp": worldtest.ISO(30 * time.Second), "COUNT:tsp": int64(1)}}},
		{"object range", worldtest.Q("metrics", worldtest.List(count), "limit", 1, "timeRange", worldtest.Q("start", worldtest.Ms(-time.Second), "end", worldtest.Ms(0))),
			[]map[string]any{{"tsp": worldtest.ISO(-time.Second), "COUNT:tsp": int64(1)}}},
		{"nothing in range", worldtest.Q("metrics", worldtest.List(count), "limit", 1, "timeRange", worldtest.List(worldtest.Ms(2*time.Hour), worldtest.Ms(3*time.Hour))), []map[string]any{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, f.series(t, "readings", tc.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestSeriesOpenStart: a time range without start ([null, end], the
// object without start, [null, null]) reads from the table's first row:
// the range starts at its tsp, and buckets are counted from there. An
// empty table, or one whose first row is not before the end, answers no
// rows.
func TestSeriesOpenStart(t *testing.T) { backends.EachStore(t, testSeriesOpenStart) }

func testSeriesOpenStart(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	count := metric("tsp", "COUNT")
	query := func(tr any, limit int) map[string]any {
		return worldtest.Q("metrics", worldtest.List(count), "limit", limit, "timeRange", tr)
	}
	if diff := cmp.Diff([]map[string]any{}, f.series(t, "readings", query(worldtest.List(nil, worldtest.Ms(time.Hour)), 10))); diff != "" {
		t.Errorf("empty table (-want +got):\n%s", diff)
	}
	for _, d := range []time.Duration{-90 * time.Second, 0, 30 * time.Second, 20 * time.Minute, 2 * time.Hour} {
		f.insert(t, "readings", map[string]any{"tsp": worldtest.T0.Add(d), "temp": 1})
	}
	cases := []struct {
		name  string
		query map[string]any
		want  []map[string]any
	}{
		{"[null, end]: one bucket from the first row", query(worldtest.List(nil, worldtest.Ms(time.Hour)), 1),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(4)}}},
		{"[null, end]: the span from the first row divided by limit", query(worldtest.List(nil, worldtest.Ms(2*time.Hour+time.Second)), 2),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(4)}, {"tsp": worldtest.ISO(3555500 * time.Millisecond), "COUNT:tsp": int64(1)}}},
		{"object without start", query(worldtest.Q("end", worldtest.Ms(time.Hour)), 1),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(4)}}},
		{"ISO end", query(worldtest.List(nil, "2026-01-01T01:00:00Z"), 1),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(4)}}},
		{"[null, null]: the first row to now", query(worldtest.List(nil, nil), 1),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(5)}}},
		{"bucketMs from the first row", worldtest.Q("metrics", worldtest.List(count), "limit", 100, "timeRange", worldtest.List(nil, worldtest.Ms(time.Hour)), "bucketMs", 60000),
			[]map[string]any{{"tsp": worldtest.ISO(-90 * time.Second), "COUNT:tsp": int64(1)}, {"tsp": worldtest.ISO(-30 * time.Second), "COUNT:tsp": int64(1)},
				{"tsp": worldtest.ISO(30 * time.Second), "COUNT:tsp": int64(1)}, {"tsp": worldtest.ISO(1170 * time.Second), "COUNT:tsp": int64(1)}}},
		{"the first row is the end: empty", query(worldtest.List(nil, worldtest.Ms(-90*time.Second)), 1), []map[string]any{}},
		{"the first row is after the end: empty", query(worldtest.List(nil, worldtest.Ms(-time.Hour)), 1), []map[string]any{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, f.series(t, "readings", tc.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestSeriesAggregates: each method, NULL handling, typing, groupBy with
// NULL groups last, filters, duplicate metrics computed once, json paths
// cast to numeric.
func TestSeriesAggregates(t *testing.T) { backends.EachStore(t, testSeriesAggregates) }

func testSeriesAggregates(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.insert(t, "sensordata",
		map[string]any{"tsp": worldtest.Ms(0), "temperature": 10, "n": 4, "source": "b", "seen": worldtest.Ms(time.Hour), "payload": map[string]any{"v": 1}},
		map[string]any{"tsp": worldtest.Ms(time.Second), "temperature": 15, "n": 5, "source": "a", "payload": map[string]any{"v": "2.5"}},
		map[string]any{"tsp": worldtest.Ms(2 * time.Second), "source": nil, "n": 1, "seen": worldtest.Ms(0)},
		map[string]any{"tsp": worldtest.Ms(3 * time.Second), "temperature": 20.5, "source": "c", "payload": map[string]any{"v": 4}},
	)
	all := worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Minute))
	got := f.series(t, "sensordata", worldtest.Q("limit", 1, "timeRange", all, "metrics", worldtest.List(
		metric("temperature", "AVG"), metric("temperature", "SUM"), metric("temperature", "COUNT"),
		metric("temperature", "MIN"), metric("temperature", "MAX"), metric("temperature", "FIRST"),
		metric("temperature", "LAST"), metric("temperature", "AVG"), metric("tsp", "COUNT"),
		metric("n", "SUM"), metric("n", "AVG"), metric("source", "MIN"), metric("source", "MAX"),
		metric("source", "FIRST"), metric("seen", "MAX"), metric("seen", "FIRST"), metric("payload", "LAST"),
		metric("payload.v", "SUM"), metric("payload.v", "MAX"), metric("payload.v", "COUNT"), metric("device_key", "MAX"),
	)))
	want := []map[string]any{{
		"tsp": worldtest.ISO(0), "AVG:temperature": 15.166666666666666, "SUM:temperature": 45.5, "COUNT:temperature": int64(3),
		"MIN:temperature": int64(10), "MAX:temperature": 20.5, "FIRST:temperature": int64(10), "LAST:temperature": 20.5,
		"COUNT:tsp": int64(4), "SUM:n": int64(10), "AVG:n": 3.3333333333333335, "MIN:source": "a", "MAX:source": "c",
		"FIRST:source": "b", "MAX:seen": worldtest.ISO(time.Hour), "FIRST:seen": worldtest.ISO(time.Hour), "LAST:payload": map[string]any{"v": int64(4)},
		"SUM:payload.v": 7.5, "MAX:payload.v": int64(4), "COUNT:payload.v": int64(3), "MAX:device_key": int64(42),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("aggregates (-want +got):\n%s", diff)
	}
	// FIRST and LAST take the value of the first and last row, null too.
	got = f.series(t, "sensordata", worldtest.Q("limit", 1, "timeRange", worldtest.List(worldtest.Ms(time.Second), worldtest.Ms(3*time.Second)),
		"metrics", worldtest.List(metric("source", "LAST"), metric("temperature", "LAST"), metric("temperature", "AVG"))))
	if diff := cmp.Diff([]map[string]any{{"tsp": worldtest.ISO(time.Second), "LAST:source": nil, "LAST:temperature": nil, "AVG:temperature": int64(15)}}, got); diff != "" {
		t.Errorf("LAST of a null (-want +got):\n%s", diff)
	}
	// Groups ascend within each bucket, NULL last; filters apply.
	got = f.series(t, "sensordata", worldtest.Q("limit", 2, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(4*time.Second)), "groupBy", worldtest.List("source"),
		"metrics", worldtest.List(metric("tsp", "COUNT")), "filterAnd", worldtest.List(worldtest.Pred("n", "IS NOT NULL"))))
	want = []map[string]any{
		{"tsp": worldtest.ISO(0), "source": "a", "COUNT:tsp": int64(1)},
		{"tsp": worldtest.ISO(0), "source": "b", "COUNT:tsp": int64(1)},
		{"tsp": worldtest.ISO(2 * time.Second), "source": nil, "COUNT:tsp": int64(1)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	got = f.series(t, "sensordata", worldtest.Q("limit", 1, "timeRange", all, "groupBy", worldtest.List("payload.v", "device_key"), "metrics", worldtest.List(metric("n", "MAX"))))
	// jsonb order: strings before numbers; NULL (no value) last.
	if diff := cmp.Diff([]any{"2.5", int64(1), int64(4), nil}, worldtest.Col(got, "payload.v")); diff != "" || got[0]["device_key"] != int64(42) {
		t.Errorf("groups by a json path: %v (-want +got):\n%s", got, diff)
	}
	// A json value that is not a number fails the cast.
	f.insert(t, "sensordata", map[string]any{"tsp": worldtest.Ms(4 * time.Second), "payload": map[string]any{"v": "high"}})
	r := worldtest.Call(t, f.c, "history.transformed.series.sensordata", worldtest.Q("limit", 1, "timeRange", all, "metrics", worldtest.List(metric("payload.v", "AVG"))), nil, false)
	r.Refused(t, "cast", wire.ErrRuntimeError)
	if diff := cmp.Diff([]any{map[string]any{"name": "error", "severity": "ERROR", "code": "22P02"}}, r.ErrArgs); diff != "" {
		t.Errorf("cast error (-want +got):\n%s", diff)
	}
	// error-logs has series too.
	worldtest.Call(t, f.c, "append.2.26.error-logs", map[string]any{"tsp": worldtest.Ms(0), "msg": "x"}, f.meta(), false).OK(t, "report")
	if got := f.series(t, "error-logs", worldtest.Q("limit", 1, "timeRange", all, "metrics", worldtest.List(metric("tsp", "COUNT")))); len(got) != 1 {
		t.Errorf("error-logs series %v", got)
	}
}

// TestSeriesSeedShape: the seed's shape (metrics as column names, one
// method for all) is answered exactly like the newer one.
func TestSeriesSeedShape(t *testing.T) { backends.EachStore(t, testSeriesSeedShape) }

func testSeriesSeedShape(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.insert(t, "sensordata",
		map[string]any{"tsp": worldtest.Ms(0), "temperature": 10, "n": 4},
		map[string]any{"tsp": worldtest.Ms(time.Second), "temperature": 20, "n": 6})
	rng := worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour))
	seed := f.series(t, "sensordata", worldtest.Q("metrics", worldtest.List("temperature", "n"), "method", "AVG", "limit", 1, "timeRange", rng))
	newer := f.series(t, "sensordata", worldtest.Q("metrics", worldtest.List(metric("temperature", "AVG"), metric("n", "AVG")), "limit", 1, "timeRange", rng))
	want := []map[string]any{{"tsp": worldtest.ISO(0), "AVG:temperature": int64(15), "AVG:n": int64(5)}}
	if diff := cmp.Diff(want, seed); diff != "" {
		t.Errorf("seed shape (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(newer, seed); diff != "" {
		t.Errorf("seed shape differs from the newer one (-newer +seed):\n%s", diff)
	}
	worldtest.Call(t, f.c, "history.transformed.series.sensordata", worldtest.Q("metrics", worldtest.List("temperature"), "limit", 1, "timeRange", rng), nil, false).
		Refused(t, "names without a method", wire.ErrRuntimeError)
	worldtest.Call(t, f.c, "history.transformed.series.sensordata", worldtest.Q("metrics", worldtest.List("temperature"), "method", "avg", "limit", 1, "timeRange", rng), nil, false).
		Refused(t, "lower-case method", wire.ErrRuntimeError)
}

// TestSeriesRefusals: time range, metric, groupBy and filter refusals.
func TestSeriesRefusals(t *testing.T) { backends.EachStore(t, testSeriesRefusals) }

func testSeriesRefusals(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	long := strings.Repeat("x", 60)
	base := func(kv ...any) map[string]any {
		m := worldtest.Q("limit", 10, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour)), "metrics", worldtest.List(metric("temperature", "AVG")))
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name  string
		table string
		query map[string]any
		uri   string
	}{
		{"end before start", "sensordata", base("timeRange", worldtest.List(worldtest.Ms(time.Hour), worldtest.Ms(0))), wire.ErrInvalidTimeRange},
		{"end equals start", "sensordata", base("timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(0))), wire.ErrInvalidTimeRange},
		{"start in the future, open end", "sensordata", base("timeRange", worldtest.List(worldtest.Ms(48*time.Hour), nil)), wire.ErrInvalidTimeRange},
		{"not a date", "sensordata", base("timeRange", worldtest.List("soon", nil)), wire.ErrInvalidTimeRange},
		{"unknown column", "sensordata", base("metrics", worldtest.List(metric("nosuch", "AVG"))), wire.ErrInvalidMetric},
		{"path into non-json", "sensordata", base("metrics", worldtest.List(metric("source.x", "COUNT"))), wire.ErrInvalidMetric},
		{"secret column", "credentials", base("metrics", worldtest.List(metric("api_key", "COUNT"))), wire.ErrInvalidMetric},
		{"AVG of text", "sensordata", base("metrics", worldtest.List(metric("source", "AVG"))), wire.ErrInvalidMetric},
		{"SUM of timestamp", "sensordata", base("metrics", worldtest.List(metric("seen", "SUM"))), wire.ErrInvalidMetric},
		{"AVG of json", "sensordata", base("metrics", worldtest.List(metric("payload", "AVG"))), wire.ErrInvalidMetric},
		{"MIN of boolean", "sensordata", base("metrics", worldtest.List(metric("ok", "MIN"))), wire.ErrInvalidMetric},
		{"MAX of json", "sensordata", base("metrics", worldtest.List(metric("payload", "MAX"))), wire.ErrInvalidMetric},
		{"tsp with MAX", "sensordata", base("metrics", worldtest.List(metric("tsp", "MAX"))), wire.ErrInvalidMetric},
		{"tsp with a path", "sensordata", base("metrics", worldtest.List(metric("tsp.x", "COUNT"))), wire.ErrInvalidMetric},
		{"name over 63 bytes", "sensordata", base("metrics", worldtest.List(metric("payload."+long, "COUNT"))), wire.ErrInvalidMetric},
		{"unknown group", "sensordata", base("groupBy", worldtest.List("nosuch")), wire.ErrInvalidGroupBy},
		{"secret group", "credentials", base("metrics", worldtest.List(metric("tsp", "COUNT")), "groupBy", worldtest.List("api_key")), wire.ErrInvalidGroupBy},
		{"tsp group", "sensordata", base("groupBy", worldtest.List("tsp")), wire.ErrInvalidGroupBy},
		{"group is a metric", "sensordata", base("groupBy", worldtest.List("temperature")), wire.ErrInvalidGroupBy},
		{"group over 63 bytes", "sensordata", base("groupBy", worldtest.List("payload.x"+long)), wire.ErrInvalidGroupBy},
		{"group path into non-json", "sensordata", base("groupBy", worldtest.List("source.x")), wire.ErrInvalidGroupBy},
		{"secret filter", "credentials", base("metrics", worldtest.List(metric("tsp", "COUNT")), "filterAnd", worldtest.List(worldtest.Pred("api_key", "=", "x"))), wire.ErrSecretColumn},
		{"mixed filter", "sensordata", base("filterAnd", worldtest.List(worldtest.Q("latest", true, "column", "n", "operator", "=", "value", 1))), wire.ErrInvalidFilter},
	}
	for _, tc := range cases {
		worldtest.Call(t, f.c, "history.transformed.series."+tc.table, tc.query, nil, false).Refused(t, tc.name, tc.uri)
	}
}

// TestSeriesTooManyGroups: more than 50 000 answer rows is refused with
// the cap in kwargs.
func TestSeriesTooManyGroups(t *testing.T) { backends.EachStore(t, testSeriesTooManyGroups) }

func testSeriesTooManyGroups(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	rows := make([]map[string]any, 50001)
	for i := range rows {
		rows[i] = map[string]any{"tsp": worldtest.Ms(0), "n": i}
	}
	f.insert(t, "sensordata", rows...)
	query := worldtest.Q("limit", 1, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Second)), "metrics", worldtest.List(metric("tsp", "COUNT")), "groupBy", worldtest.List("n"))
	r := worldtest.Call(t, f.c, "history.transformed.series.sensordata", query, nil, true).Refused(t, "too many groups", wire.ErrSeriesTooManyGroups)
	if diff := cmp.Diff(map[string]any{"tablename": "sensordata", "cap": int64(50000)}, r.ErrKw); diff != "" {
		t.Errorf("kwargs (-want +got):\n%s", diff)
	}
	// 50 000 answer rows are allowed: TestSeriesGroupCap in package fleetdb
	// checks it inside (the answer is large).
}
