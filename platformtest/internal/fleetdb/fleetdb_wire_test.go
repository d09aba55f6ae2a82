package fleetdb_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
)

// The worked examples of docs/wire.md, sent by a raw nexus client exactly as
// written there.

// TestWireGetHistoryFull is scenario step get_history_full (docs/wire.md §7.5)
// on a table without entity key: the latest marker takes the single newest
// row, which must then match the condition and the time range (else no
// rows), offset ignored, projected to temperature plus tsp, device_key and
// authid.
func TestWireGetHistoryFull(t *testing.T) { backends.EachStore(t, testWireGetHistoryFull) }

func testWireGetHistoryFull(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.insert(t, "sensordata",
		map[string]any{"tsp": worldtest.T0.Add(-time.Hour), "temperature": 30.0, "source": "old"},
		map[string]any{"tsp": worldtest.T0.Add(time.Minute), "temperature": 25.0},
		map[string]any{"tsp": worldtest.T0.Add(2 * time.Minute), "temperature": 19.5},
		map[string]any{"tsp": worldtest.T0.Add(3 * time.Minute), "temperature": 22.25, "source": "lab"},
		map[string]any{"tsp": worldtest.T0.Add(4 * time.Minute), "temperature": 10.0},
	)
	fullQuery := map[string]any{
		"limit": 5, "offset": 2, "timeRange": []any{"2026-01-01T00:00:00Z", nil},
		"filterAnd": []any{
			map[string]any{"column": "temperature", "operator": ">", "value": 20},
			map[string]any{"latest": true},
		},
		"columns": []any{"temperature"},
	}
	// The newest row (4 min, 10.0) does not match: no rows, not the older
	// 22.25.
	got := worldtest.Call(t, f.c, "history.transformed.sensordata", fullQuery, nil, false).OK(t, "get_history_full")
	if diff := cmp.Diff([]any{[]any{}}, got.Args); diff != "" {
		t.Errorf("get_history_full, the newest row does not match (-want +got):\n%s", diff)
	}
	f.insert(t, "sensordata", map[string]any{"tsp": worldtest.T0.Add(5 * time.Minute), "temperature": 22.25, "source": "lab"})
	got = worldtest.Call(t, f.c, "history.transformed.sensordata", fullQuery, nil, false).OK(t, "get_history_full")
	want := []any{[]any{map[string]any{
		"tsp": worldtest.ISO(5 * time.Minute), "temperature": 22.25, "device_key": int64(42), "authid": f.serial,
	}}}
	if diff := cmp.Diff(want, got.Args); diff != "" {
		t.Errorf("get_history_full (-want +got):\n%s", diff)
	}

	// The default call of the SDKs.
	got = worldtest.Call(t, f.c, "history.transformed.sensordata", map[string]any{"limit": 10, "offset": 0}, nil, false).OK(t, "default")
	rows := got.Rows(t)
	if diff := cmp.Diff([]any{worldtest.ISO(-time.Hour), worldtest.ISO(time.Minute), worldtest.ISO(2 * time.Minute), worldtest.ISO(3 * time.Minute), worldtest.ISO(4 * time.Minute), worldtest.ISO(5 * time.Minute)}, worldtest.Col(rows, "tsp")); diff != "" {
		t.Errorf("default read, ascending tsp (-want +got):\n%s", diff)
	}
	wantRow := map[string]any{"tsp": worldtest.ISO(-time.Hour), "temperature": int64(30), "n": nil, "source": "old", "ok": nil,
		"payload": nil, "seen": nil, "device_key": int64(42), "authid": f.serial}
	if diff := cmp.Diff(wantRow, rows[0]); diff != "" {
		t.Errorf("SELECT * row, whole numbers as integers (-want +got):\n%s", diff)
	}
}

// TestWireSeriesExamples are the series examples of docs/wire.md §7.7.
func TestWireSeriesExamples(t *testing.T) { backends.EachStore(t, testWireSeriesExamples) }

func testWireSeriesExamples(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.insert(t, "sensordata",
		map[string]any{"tsp": worldtest.T0.Add(time.Hour), "temperature": 20},
		map[string]any{"tsp": worldtest.T0.Add(3 * time.Hour), "temperature": 22},
		map[string]any{"tsp": worldtest.T0.Add(10 * time.Hour), "temperature": 10},
		map[string]any{"tsp": worldtest.T0.Add(-time.Hour), "temperature": 99},
	)
	if err := f.p.InsertRows(f.in2, "sensordata", map[string]any{"tsp": worldtest.T0.Add(2 * time.Hour), "temperature": 30.5}); err != nil {
		t.Fatal(err)
	}
	got := worldtest.Call(t, f.c, "history.transformed.series.sensordata", map[string]any{
		"metrics": []any{map[string]any{"ref": "temperature", "method": "AVG"}}, "limit": 100,
		"timeRange": []any{"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"}, "groupBy": []any{"device_key"},
	}, nil, false).OK(t, "series by device").Rows(t)
	width := 31 * 24 * time.Hour / 100 // the range divided into limit buckets
	want := []map[string]any{
		{"tsp": worldtest.ISO(0), "device_key": int64(42), "AVG:temperature": int64(21)},
		{"tsp": worldtest.ISO(0), "device_key": int64(43), "AVG:temperature": 30.5},
		{"tsp": worldtest.ISO(width), "device_key": int64(42), "AVG:temperature": int64(10)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series by device (-want +got):\n%s", diff)
	}

	f.insert(t, "readings",
		map[string]any{"tsp": worldtest.T0.Add(time.Minute), "temp": 3.5},
		map[string]any{"tsp": worldtest.T0.Add(2 * time.Minute), "temp": 7},
	)
	got = worldtest.Call(t, f.c, "history.transformed.series.readings", map[string]any{
		"metrics": []any{map[string]any{"ref": "temp", "method": "MAX"}}, "limit": 10,
		"timeRange": []any{int64(1767225600000), nil},
	}, nil, false).OK(t, "series to now").Rows(t)
	if diff := cmp.Diff([]map[string]any{{"tsp": "2026-01-01T00:00:00.000Z", "MAX:temp": int64(7)}}, got); diff != "" {
		t.Errorf("series to now (-want +got):\n%s", diff)
	}
}

// TestWireWrites are the writes of docs/wire.md §7.1–7.4: append, appendBulk,
// publish and bulk publish of rows, and both forms of ReportError.
func TestWireWrites(t *testing.T) { backends.EachStore(t, testWireWrites) }

func testWireWrites(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	feed := worldtest.Subscribe(t, f.c2, "transformed.sensordata")
	bulkFeed := worldtest.Subscribe(t, f.c2, "transformed.bulk.sensordata")
	errFeed := worldtest.Subscribe(t, f.c2, "transformed.error-logs")

	res := f.appendRow(t, "sensordata", map[string]any{"tsp": "2026-01-01T00:00:00Z", "temperature": 21.5}).OK(t, "append")
	if diff := cmp.Diff([]any{map[string]any{"success": true}}, res.Args); diff != "" {
		t.Errorf("append answer (-want +got):\n%s", diff)
	}
	batch := []any{
		map[string]any{"tsp": "2026-01-01T00:01:00Z", "temperature": 22},
		map[string]any{"tsp": "2026-01-01T00:02:00Z", "temperature": 23.5},
	}
	res = worldtest.Call(t, f.c, "appendBulk.2.26.sensordata", batch, f.meta(), false).OK(t, "appendBulk")
	if diff := cmp.Diff([]any{map[string]any{"success": true, "count": int64(2)}}, res.Args); diff != "" {
		t.Errorf("appendBulk answer (-want +got):\n%s", diff)
	}
	ack := wamp.Dict{"acknowledge": true}
	if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"tsp": "2026-01-01T00:03:00Z", "temperature": 24}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Publish("bulk.2.26.sensordata", ack, wamp.List{[]any{
		map[string]any{"tsp": "2026-01-01T00:04:00Z", "temperature": 25},
		map[string]any{"tsp": "2026-01-01T00:05:00Z", "temperature": 26},
	}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	row := func(d time.Duration, temp any) map[string]any {
		return map[string]any{"tsp": worldtest.ISO(d), "temperature": temp, "device_key": int64(42), "authid": f.serial}
	}
	wantFeed := []any{
		[]any{row(0, 21.5)},
		[]any{[]any{row(time.Minute, int64(22)), row(2*time.Minute, 23.5)}},
		[]any{row(3*time.Minute, int64(24))},
		[]any{[]any{row(4*time.Minute, int64(25)), row(5*time.Minute, int64(26))}},
	}
	gotFeed := []any{worldtest.NextEvent(t, feed, "append"), worldtest.NextEvent(t, bulkFeed, "appendBulk"),
		worldtest.NextEvent(t, feed, "publish"), worldtest.NextEvent(t, bulkFeed, "bulk publish")}
	if diff := cmp.Diff(wantFeed, gotFeed); diff != "" {
		t.Errorf("feeds, only the carried columns (-want +got):\n%s", diff)
	}
	rows := f.history(t, "sensordata", worldtest.Q("limit", 10, "offset", 0, "columns", worldtest.List("temperature")))
	if diff := cmp.Diff([]any{21.5, int64(22), 23.5, int64(24), int64(25), int64(26)}, worldtest.Col(rows, "temperature")); diff != "" {
		t.Errorf("stored rows (-want +got):\n%s", diff)
	}

	// ReportError, published (the default) and appended.
	report := map[string]any{"tsp": "2026-01-01T00:00:00.000Z", "msg": "valve stuck\nmain.go:12", "user_message": "valve stuck",
		"source": "app", "level": "warn"}
	if err := f.c.Publish("2.26.error-logs", ack, wamp.List{report}, f.meta()); err != nil {
		t.Fatal(err)
	}
	ev := worldtest.NextEvent(t, errFeed, "published error report")
	wantEv := []any{map[string]any{"tsp": worldtest.ISO(0), "msg": "valve stuck\nmain.go:12", "user_message": "valve stuck",
		"source": "app", "level": "warn", "device_key": int64(42), "authid": f.serial}}
	if diff := cmp.Diff(wantEv, ev); diff != "" {
		t.Errorf("transformed.error-logs (-want +got):\n%s", diff)
	}
	report["level"] = "error"
	res = worldtest.Call(t, f.c, "append.2.26.error-logs", report, f.meta(), false).OK(t, "appended error report")
	if diff := cmp.Diff([]any{map[string]any{"success": true}}, res.Args); diff != "" {
		t.Errorf("append error-logs answer (-want +got):\n%s", diff)
	}
	logs := f.history(t, "error-logs", worldtest.Q("limit", 10, "offset", 0))
	if len(logs) != 2 || logs[0]["id"] != int64(1) || logs[1]["id"] != int64(2) || logs[1]["level"] != "error" || logs[0]["source"] != "app" {
		t.Errorf("error-logs rows %v", logs)
	}

	// Undeclared tables are not served.
	worldtest.Call(t, f.c, "history.transformed.nosuchtable", worldtest.Q("limit", 10), nil, false).Refused(t, "undeclared history", "wamp.error.no_such_procedure")
	worldtest.Call(t, f.c, "append.2.26.nosuchtable", map[string]any{"tsp": 1}, nil, false).Refused(t, "undeclared append", "wamp.error.no_such_procedure")
	worldtest.Call(t, f.c, "history.transformed.series.sensordata_hourly", worldtest.Q("limit", 10), nil, false).Refused(t, "series of a transform", "wamp.error.no_such_procedure")
	worldtest.Call(t, f.c, "secret.reveal.sensordata", worldtest.Q("limit", 10), nil, false).Refused(t, "reveal of a table without secrets", "wamp.error.no_such_procedure")
	worldtest.Call(t, f.c, "secret.verify.error-logs", worldtest.Q("limit", 1), nil, false).Refused(t, "verify on error-logs", "wamp.error.no_such_procedure")
}

// TestWireRecordsPayloads: every payload the backend received is recorded
// before validation, with its kind, URI, args and kwargs.
func TestWireRecordsPayloads(t *testing.T) { backends.EachStore(t, testWireRecordsPayloads) }

func testWireRecordsPayloads(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	worldtest.Call(t, f.c, "history.transformed.sensordata", worldtest.Q("limit", -1), nil, false).Refused(t, "invalid", "wamp.error.runtime_error")
	if err := f.c.Publish("2.26.sensordata", wamp.Dict{"acknowledge": true}, wamp.List{map[string]any{"temperature": 1}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	var got []platformtest.Message
	for _, m := range f.p.Recorded() {
		if m.Kind == platformtest.KindCall || m.Kind == platformtest.KindPublish {
			m.Options, m.Session, m.Time = nil, 0, time.Time{}
			got = append(got, m)
		}
	}
	want := []platformtest.Message{
		{Kind: platformtest.KindCall, Realm: f.realm, URI: "history.transformed.sensordata", Args: []any{map[string]any{"limit": int64(-1)}}, AuthID: f.serial},
		{Kind: platformtest.KindPublish, Realm: f.realm, URI: "2.26.sensordata", Args: []any{map[string]any{"temperature": int64(1)}},
			Kwargs: map[string]any{"DEVICE_SERIAL_NUMBER": f.serial, "DEVICE_KEY": "42", "DEVICE_NAME": "press"}, AuthID: f.serial},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
}

// TestWireJSONClient: a client on the JSON serializer (numbers without an
// integer type) writes and reads the same rows.
func TestWireJSONClient(t *testing.T) { backends.EachStore(t, testWireJSONClient) }

func testWireJSONClient(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	c := worldtest.Connect(t, f.p, f.in, client.JSON)
	worldtest.Call(t, c, "append.2.26.sensordata", map[string]any{"tsp": int64(1767225600000), "temperature": 21.5, "n": 3}, f.meta(), false).OK(t, "append")
	got := worldtest.Call(t, c, "history.transformed.sensordata", map[string]any{"limit": 10, "offset": 0, "columns": []any{"n", "temperature"},
		"filterAnd": []any{map[string]any{"column": "n", "operator": "IN", "value": []any{3, 4}}}}, nil, false).OK(t, "history").Rows(t)
	if len(got) != 1 || fmt.Sprintln(got[0]["tsp"], got[0]["n"], got[0]["temperature"], got[0]["device_key"]) != "2026-01-01T00:00:00.000Z 3 21.5 42\n" {
		t.Errorf("rows %v", got)
	}
	worldtest.Call(t, c, "history.transformed.sensordata", map[string]any{"limit": 1.5}, nil, false).Refused(t, "fractional limit", "wamp.error.runtime_error")
}
