package fleetdb_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestChunkedResults: with a small chunk budget a read asking for
// progressive results gets chunks [i, rows] (rows newest first, chunk 0
// the newest) and a summary; without progressive results it fails with
// result_too_large and its kwargs; a single row over the budget fails
// either way.
func TestChunkedResults(t *testing.T) { backends.EachStore(t, testChunkedResults) }

func testChunkedResults(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	var rows []map[string]any
	for i := range 20 {
		rows = append(rows, map[string]any{"tsp": worldtest.Ms(time.Duration(i) * time.Second), "temp": i})
	}
	f.insert(t, "readings", rows...)
	// A row is estimated at 117 bytes: 2 + tsp 32 (an ISO text) + temp 15
	// + device_key 21 + authid 47 (a 36-byte serial); 351 bytes hold 3
	// rows.
	f.p.SetChunkBudget(f.realm, "readings", 351)
	read := worldtest.Q("limit", 20, "offset", 0)

	r := worldtest.Call(t, f.c, "history.transformed.readings", read, nil, true).OK(t, "chunked")
	summary := map[string]any{"chunked": true, "chunkCount": int64(7), "totalRows": int64(20), "order": "asc"}
	if diff := cmp.Diff([]any{summary}, r.Args); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	var all []any
	for i, p := range r.Progress {
		if p[0] != int64(i) {
			t.Errorf("chunk %d has index %v", i, p[0])
		}
		chunk := worldtest.Col(toRows(p[1]), "temp")
		if want := min(3, 20-3*i); len(chunk) != want {
			t.Errorf("chunk %d holds %d rows, want %d", i, len(chunk), want)
		}
		all = append(all, chunk...)
	}
	slices.Reverse(all) // order "asc": the concatenation is newest first
	if diff := cmp.Diff(worldtest.Col(f.history(t, "readings", worldtest.Q("limit", 3, "offset", 17)), "temp"), all[:3]); diff != "" {
		t.Errorf("oldest rows (-want +got):\n%s", diff)
	}
	for i, v := range all {
		if v != int64(i) {
			t.Fatalf("reassembled rows %v, want 0…19 ascending", all)
		}
	}

	r = worldtest.Call(t, f.c, "history.transformed.readings", read, nil, false).Refused(t, "too large", wire.ErrResultTooLarge)
	detail, _ := r.ErrKw["detail"].(string)
	delete(r.ErrKw, "detail")
	wantKw := map[string]any{"bytes": int64(2340), "rows": int64(20), "tablename": "readings", "limitBytes": int64(351),
		"topColumns": []any{
			map[string]any{"name": "authid", "bytes": int64(940), "pct": 40.2},
			map[string]any{"name": "tsp", "bytes": int64(640), "pct": 27.4},
			map[string]any{"name": "device_key", "bytes": int64(420), "pct": 17.9},
			map[string]any{"name": "temp", "bytes": int64(300), "pct": 12.8},
		}}
	if diff := cmp.Diff(wantKw, r.ErrKw); diff != "" {
		t.Errorf("result_too_large kwargs (-want +got):\n%s", diff)
	}
	if detail == "" || len(r.ErrArgs) != 1 {
		t.Errorf("result_too_large args %v, detail %q", r.ErrArgs, detail)
	}

	// A result within the budget is a plain list, progressive or not.
	if rows := worldtest.Call(t, f.c, "history.transformed.readings", worldtest.Q("limit", 3), nil, true).OK(t, "fits").Rows(t); len(rows) != 3 {
		t.Errorf("plain answer %v", rows)
	}
	f.p.SetChunkBudget(f.realm, "readings", 50)
	worldtest.Call(t, f.c, "history.transformed.readings", worldtest.Q("limit", 1), nil, true).Refused(t, "row over the budget", wire.ErrResultTooLarge)
	f.p.SetChunkBudget(f.realm, "readings", 0) // back to 8 MiB
	if rows := worldtest.Call(t, f.c, "history.transformed.readings", read, nil, false).OK(t, "default budget").Rows(t); len(rows) != 20 {
		t.Errorf("default budget: %d rows", len(rows))
	}

	// Series and transforms are chunked the same way.
	f.p.SetChunkBudget(f.realm, "readings", 120)
	r = worldtest.Call(t, f.c, "history.transformed.series.readings", worldtest.Q("metrics", worldtest.List(worldtest.Q("ref", "temp", "method", "SUM")),
		"limit", 20, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(20*time.Second))), nil, true).OK(t, "chunked series")
	if r.Args[0].(map[string]any)["totalRows"] != int64(20) || r.Progress[0][1].([]any)[0].(map[string]any)["SUM:temp"] != int64(19) {
		t.Errorf("chunked series: %v, first chunk %v", r.Args, r.Progress[0])
	}
	source, view := make([]map[string]any, 10), make([]map[string]any, 10)
	for i := range view {
		hour := worldtest.T0.Add(time.Duration(9-i) * time.Hour)
		source[i] = map[string]any{"tsp": hour, "source": "a long label to fill the budget", "temperature": i, "n": 0}
		view[i] = map[string]any{"tsp": hour, "label": "a long label to fill the budget", "avg_temp": i, "extra": 0}
	}
	f.insert(t, "sensordata", source...)
	f.transform(t, "sensordata_hourly", view)
	f.p.SetChunkBudget(f.realm, "sensordata_hourly", 200)
	r = worldtest.Call(t, f.c, "history.transformed.sensordata_hourly", worldtest.Q("limit", 10), nil, true).OK(t, "chunked view")
	if r.Args[0].(map[string]any)["totalRows"] != int64(10) || len(r.Progress) < 2 {
		t.Errorf("chunked view: %v in %d chunks", r.Args, len(r.Progress))
	}
}
