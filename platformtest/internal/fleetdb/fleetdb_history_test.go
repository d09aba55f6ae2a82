package fleetdb_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestHistoryPaging: newest first by (tsp, insertion), offset, limit,
// then ascending; limit 0 returns no rows.
func TestHistoryPaging(t *testing.T) { backends.EachStore(t, testHistoryPaging) }

func testHistoryPaging(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	var rows []map[string]any
	for i := range 10 {
		rows = append(rows, map[string]any{"tsp": worldtest.Ms(time.Duration(i/2) * time.Second), "temp": i})
	}
	f.insert(t, "readings", rows[5:]...) // out of order: the later half first
	f.insert(t, "readings", rows[:5]...)
	temps := func(query map[string]any) []any {
		t.Helper()
		return worldtest.Col(f.history(t, "readings", query), "temp")
	}
	// tsp pairs (0,1) (2,3) (4,5) (6,7) (8,9); 5 was inserted before 4, so
	// 4 is newer than 5 at the same tsp.
	cases := []struct {
		query map[string]any
		want  []any
	}{
		{worldtest.Q("limit", 3, "offset", 0), worldtest.List(int64(7), int64(8), int64(9))},
		{worldtest.Q("limit", 3, "offset", 4), worldtest.List(int64(3), int64(5), int64(4))},
		{worldtest.Q("limit", 100), worldtest.List(int64(0), int64(1), int64(2), int64(3), int64(5), int64(4), int64(6), int64(7), int64(8), int64(9))},
		{worldtest.Q("limit", 5, "offset", 9), worldtest.List(int64(0))},
		{worldtest.Q("limit", 5, "offset", 10), worldtest.List()},
		{worldtest.Q("limit", 0), worldtest.List()},
		{worldtest.Q("limit", 2, "offset", 1, "filterAnd", worldtest.List(worldtest.Pred("temp", "<", 8))), worldtest.List(int64(4), int64(6))},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, temps(tc.query)); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.query, diff)
		}
	}
}

// TestHistoryTimeRange: start ≤ tsp < end with truthy bounds truncated to
// whole seconds; strings or numbers, the array or the seed's object form.
func TestHistoryTimeRange(t *testing.T) { backends.EachStore(t, testHistoryTimeRange) }

func testHistoryTimeRange(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	var rows []map[string]any
	for _, d := range []time.Duration{-time.Hour, 0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second, time.Hour} {
		rows = append(rows, map[string]any{"tsp": worldtest.T0.Add(d), "temp": d.Milliseconds()})
	}
	f.insert(t, "readings", rows...)
	cases := []struct {
		tr   any
		want []any
	}{
		{worldtest.List("2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z"), worldtest.List(int64(0), int64(500), int64(1000), int64(1500))},
		{worldtest.List(worldtest.Ms(0), worldtest.Ms(2*time.Second)), worldtest.List(int64(0), int64(500), int64(1000), int64(1500))},
		{worldtest.List(worldtest.Ms(900*time.Millisecond), worldtest.Ms(1900*time.Millisecond)), worldtest.List(int64(0), int64(500))},
		{worldtest.List("2026-01-01T00:00:00.900Z", nil), worldtest.List(int64(0), int64(500), int64(1000), int64(1500), int64(2000), int64(3600000))},
		{worldtest.List(nil, worldtest.Ms(0)), worldtest.List(int64(-3600000))},
		{worldtest.List(0, worldtest.Ms(0)), worldtest.List(int64(-3600000))},
		{worldtest.List("", "2026-01-01T00:00:00Z"), worldtest.List(int64(-3600000))},
		{worldtest.List(nil, nil), worldtest.List(int64(-3600000), int64(0), int64(500), int64(1000), int64(1500), int64(2000), int64(3600000))},
		{map[string]any{"start": "2026-01-01T00:00:01Z", "end": "2026-01-01T01:00:00Z"}, worldtest.List(int64(1000), int64(1500), int64(2000))},
		{map[string]any{"end": "2026-01-01T00:00:00+00:00"}, worldtest.List(int64(-3600000))},
		{worldtest.List(worldtest.Ms(time.Hour), worldtest.Ms(0)), worldtest.List()},
	}
	for _, tc := range cases {
		got := worldtest.Col(f.history(t, "readings", worldtest.Q("limit", 100, "timeRange", tc.tr)), "temp")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("timeRange %v (-want +got):\n%s", tc.tr, diff)
		}
	}
	worldtest.Call(t, f.c, "history.transformed.readings", worldtest.Q("limit", 10, "timeRange", worldtest.List("yesterday", nil)), nil, false).
		Refused(t, "not a date", wire.ErrInvalidTimeRange)
}

// TestHistoryProjection: columns adds tsp, device_key and authid; an
// unknown column fails like Postgres (42703); columnPaths prunes json
// columns listed in columns.
func TestHistoryProjection(t *testing.T) { backends.EachStore(t, testHistoryProjection) }

func testHistoryProjection(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	wide := map[string]any{}
	for i := range 51 {
		wide[fmt.Sprintf("k%02d", i)] = i
	}
	f.insert(t, "sensordata",
		map[string]any{"tsp": worldtest.Ms(0), "temperature": 1.25, "source": "a", "payload": map[string]any{
			"sensor": map[string]any{"value": 3, "unit": "C"}, "meta": map[string]any{"id": "x"}, "list": []any{"a", "b"}}},
		map[string]any{"tsp": worldtest.Ms(time.Second), "payload": wide},
	)
	rows := f.history(t, "sensordata", worldtest.Q("limit", 1, "offset", 1, "columns", worldtest.List("temperature", "temperature")))
	want := []map[string]any{{"tsp": worldtest.ISO(0), "temperature": 1.25, "device_key": int64(42), "authid": f.serial}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("projection (-want +got):\n%s", diff)
	}
	rows = f.history(t, "sensordata", worldtest.Q("limit", 1, "columns", worldtest.List("device_key")))
	if len(rows[0]) != 3 {
		t.Errorf("implicit columns only: %v", rows[0])
	}
	for _, c := range []string{"nosuch", "latest_flag", "payload.sensor", ""} {
		r := worldtest.Call(t, f.c, "history.transformed.sensordata", worldtest.Q("limit", 1, "columns", worldtest.List(c)), nil, false).Refused(t, c, wire.ErrRuntimeError)
		if diff := cmp.Diff([]any{map[string]any{"name": "error", "severity": "ERROR", "code": "42703"}}, r.ErrArgs); diff != "" {
			t.Errorf("unknown column %q (-want +got):\n%s", c, diff)
		}
	}
	payload := func(paths ...any) any {
		t.Helper()
		rows := f.history(t, "sensordata", worldtest.Q("limit", 1, "offset", 1, "columns", worldtest.List("payload"), "columnPaths", paths))
		return rows[0]["payload"]
	}
	cases := []struct {
		paths []any
		want  any
	}{
		{worldtest.List("payload.sensor.value", "payload.meta"), map[string]any{"sensor": map[string]any{"value": int64(3)}, "meta": map[string]any{"id": "x"}}},
		{worldtest.List("payload.nothing", "payload.sensor.nothing"), map[string]any{"nothing": nil, "sensor": map[string]any{"nothing": nil}}},
		{worldtest.List("payload.list[1]"), map[string]any{"list": map[string]any{"1": "b"}}},
		{worldtest.List("payload.sensor.value", "payload"), map[string]any{"sensor": map[string]any{"value": int64(3), "unit": "C"},
			"meta": map[string]any{"id": "x"}, "list": []any{"a", "b"}}},
		{worldtest.List("payload.sensor", "payload.sensor.unit"), map[string]any{"sensor": map[string]any{"value": int64(3), "unit": "C"}}},
		{worldtest.List("source.x"), map[string]any{"sensor": map[string]any{"value": int64(3), "unit": "C"},
			"meta": map[string]any{"id": "x"}, "list": []any{"a", "b"}}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, payload(tc.paths...)); diff != "" {
			t.Errorf("columnPaths %v (-want +got):\n%s", tc.paths, diff)
		}
	}
	var paths []any
	for i := range 51 {
		paths = append(paths, fmt.Sprintf("payload.k%02d", i))
	}
	got := f.history(t, "sensordata", worldtest.Q("limit", 1, "columns", worldtest.List("payload"), "columnPaths", paths))[0]["payload"]
	if len(got.(map[string]any)) != 51 {
		t.Errorf("more than 50 keys: %v, want the whole column", got)
	}
	// Without columns the paths do not apply.
	got = f.history(t, "sensordata", worldtest.Q("limit", 1, "offset", 1, "columnPaths", worldtest.List("payload.meta")))[0]["payload"]
	if len(got.(map[string]any)) != 3 {
		t.Errorf("columnPaths without columns pruned: %v", got)
	}
}

// TestTransformReads: a transform's rows are read with the transform
// rules: limit ≤ 3000, filters on declared columns only, offset and limit
// over the view's order, the page answered reversed; time range, columns
// and the latest marker are ignored. Setting the rows publishes the view.
func TestTransformReads(t *testing.T) { backends.EachStore(t, testTransformReads) }

func testTransformReads(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	feed := worldtest.Subscribe(t, f.c2, "transformed.sensordata_hourly")
	// One source row per hour; the view (its SQL) has one row per hour,
	// newest first.
	var source, view []map[string]any
	for i := range 5 {
		hour := worldtest.T0.Add(time.Duration(4-i) * time.Hour)
		source = append(source, map[string]any{"tsp": hour, "temperature": 20 + float64(i)/2, "source": fmt.Sprint("h", 4-i), "n": i})
		view = append(view, map[string]any{"tsp": hour.Format(time.RFC3339),
			"avg_temp": 20 + float64(i)/2, "label": fmt.Sprint("h", 4-i), "extra": i})
	}
	f.insert(t, "sensordata", source...)
	f.transform(t, "sensordata_hourly", view)
	ev := worldtest.NextEvent(t, feed, "view tick")
	if diff := cmp.Diff([]any{"h0", "h1", "h2", "h3", "h4"}, worldtest.Col(toRows(ev[0]), "label")); diff != "" {
		t.Errorf("view event, reversed (-want +got):\n%s", diff)
	}
	read := func(query map[string]any) []any {
		t.Helper()
		return worldtest.Col(worldtest.Call(t, f.c, "history.transformed.sensordata_hourly", query, nil, false).OK(t, "view").Rows(t), "label")
	}
	if diff := cmp.Diff([]any{"h2", "h3"}, read(worldtest.Q("limit", 2, "offset", 1))); diff != "" {
		t.Errorf("offset/limit over the view order, reversed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"h0", "h1", "h2"}, read(worldtest.Q("limit", 10, "filterAnd", worldtest.List(worldtest.Pred("avg_temp", ">=", 21), worldtest.Pred("extra", "=", 99))))); diff != "" {
		t.Errorf("declared columns only (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"h0", "h1", "h2", "h3", "h4"}, read(worldtest.Q("limit", 10, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour)),
		"columns", worldtest.List("label"), "filterAnd", worldtest.List(latest, worldtest.Pred("device_key", "=", 1))))); diff != "" {
		t.Errorf("time range, columns, latest and implicit columns ignored (-want +got):\n%s", diff)
	}
	row := worldtest.Call(t, f.c, "history.transformed.sensordata_hourly", worldtest.Q("limit", 1), nil, false).Rows(t)[0]
	if diff := cmp.Diff(map[string]any{"tsp": worldtest.ISO(4 * time.Hour), "avg_temp": int64(20), "label": "h4", "extra": int64(0)}, row); diff != "" {
		t.Errorf("typed view row (-want +got):\n%s", diff)
	}
	worldtest.Call(t, f.c, "history.transformed.sensordata_hourly", worldtest.Q("limit", 3001), nil, false).Refused(t, "limit", wire.ErrInvalidLimit)
	worldtest.Call(t, f.c, "history.transformed.sensordata_hourly", worldtest.Q("limit", 3000), nil, false).OK(t, "limit 3000")
	if err := f.p.SetTransformRows(f.realm, "nosuch", nil); err == nil {
		t.Error("rows of an undeclared transform")
	}
	if err := f.p.SetTransformRows(f.realm, "sensordata_hourly", []map[string]any{{"tsp": "never"}}); err == nil {
		t.Error("a row with a bad timestamp")
	}
}

func toRows(v any) []map[string]any {
	var out []map[string]any
	for _, r := range v.([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}
