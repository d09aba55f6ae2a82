package platformtest

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestChunkedResults: with a small chunk budget a read asking for
// progressive results gets chunks [i, rows] (rows newest first, chunk 0
// the newest) and a summary; without progressive results it fails with
// result_too_large and its kwargs; a single row over the budget fails
// either way.
func TestChunkedResults(t *testing.T) { eachStore(t, testChunkedResults) }

func testChunkedResults(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	var rows []map[string]any
	for i := range 20 {
		rows = append(rows, map[string]any{"tsp": ms(time.Duration(i) * time.Second), "temp": i})
	}
	f.insert(t, "readings", rows...)
	// A row is estimated at 117 bytes: 2 + tsp 32 (an ISO text) + temp 15
	// + device_key 21 + authid 47 (a 36-byte serial); 351 bytes hold 3
	// rows.
	f.p.SetChunkBudget(f.realm, "readings", 351)
	read := q("limit", 20, "offset", 0)

	r := call(t, f.c, "history.transformed.readings", read, nil, true).ok(t, "chunked")
	summary := map[string]any{"chunked": true, "chunkCount": int64(7), "totalRows": int64(20), "order": "asc"}
	if diff := cmp.Diff([]any{summary}, r.args); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	var all []any
	for i, p := range r.progress {
		if p[0] != int64(i) {
			t.Errorf("chunk %d has index %v", i, p[0])
		}
		chunk := col(toRows(p[1]), "temp")
		if want := min(3, 20-3*i); len(chunk) != want {
			t.Errorf("chunk %d holds %d rows, want %d", i, len(chunk), want)
		}
		all = append(all, chunk...)
	}
	slices.Reverse(all) // order "asc": the concatenation is newest first
	if diff := cmp.Diff(col(f.history(t, "readings", q("limit", 3, "offset", 17)), "temp"), all[:3]); diff != "" {
		t.Errorf("oldest rows (-want +got):\n%s", diff)
	}
	for i, v := range all {
		if v != int64(i) {
			t.Fatalf("reassembled rows %v, want 0…19 ascending", all)
		}
	}

	r = call(t, f.c, "history.transformed.readings", read, nil, false).refused(t, "too large", wire.ErrResultTooLarge)
	detail, _ := r.errKw["detail"].(string)
	delete(r.errKw, "detail")
	wantKw := map[string]any{"bytes": int64(2340), "rows": int64(20), "tablename": "readings", "limitBytes": int64(351),
		"topColumns": []any{
			map[string]any{"name": "authid", "bytes": int64(940), "pct": 40.2},
			map[string]any{"name": "tsp", "bytes": int64(640), "pct": 27.4},
			map[string]any{"name": "device_key", "bytes": int64(420), "pct": 17.9},
			map[string]any{"name": "temp", "bytes": int64(300), "pct": 12.8},
		}}
	if diff := cmp.Diff(wantKw, r.errKw); diff != "" {
		t.Errorf("result_too_large kwargs (-want +got):\n%s", diff)
	}
	if detail == "" || len(r.errArgs) != 1 {
		t.Errorf("result_too_large args %v, detail %q", r.errArgs, detail)
	}

	// A result within the budget is a plain list, progressive or not.
	if rows := call(t, f.c, "history.transformed.readings", q("limit", 3), nil, true).ok(t, "fits").rows(t); len(rows) != 3 {
		t.Errorf("plain answer %v", rows)
	}
	f.p.SetChunkBudget(f.realm, "readings", 50)
	call(t, f.c, "history.transformed.readings", q("limit", 1), nil, true).refused(t, "row over the budget", wire.ErrResultTooLarge)
	f.p.SetChunkBudget(f.realm, "readings", 0) // back to 8 MiB
	if rows := call(t, f.c, "history.transformed.readings", read, nil, false).ok(t, "default budget").rows(t); len(rows) != 20 {
		t.Errorf("default budget: %d rows", len(rows))
	}

	// Series and transforms are chunked the same way.
	f.p.SetChunkBudget(f.realm, "readings", 120)
	r = call(t, f.c, "history.transformed.series.readings", q("metrics", list(q("ref", "temp", "method", "SUM")),
		"limit", 20, "timeRange", list(ms(0), ms(20*time.Second))), nil, true).ok(t, "chunked series")
	if r.args[0].(map[string]any)["totalRows"] != int64(20) || r.progress[0][1].([]any)[0].(map[string]any)["SUM:temp"] != int64(19) {
		t.Errorf("chunked series: %v, first chunk %v", r.args, r.progress[0])
	}
	source, view := make([]map[string]any, 10), make([]map[string]any, 10)
	for i := range view {
		hour := t0.Add(time.Duration(9-i) * time.Hour)
		source[i] = map[string]any{"tsp": hour, "source": "a long label to fill the budget", "temperature": i, "n": 0}
		view[i] = map[string]any{"tsp": hour, "label": "a long label to fill the budget", "avg_temp": i, "extra": 0}
	}
	f.insert(t, "sensordata", source...)
	f.transform(t, "sensordata_hourly", view)
	f.p.SetChunkBudget(f.realm, "sensordata_hourly", 200)
	r = call(t, f.c, "history.transformed.sensordata_hourly", q("limit", 10), nil, true).ok(t, "chunked view")
	if r.args[0].(map[string]any)["totalRows"] != int64(10) || len(r.progress) < 2 {
		t.Errorf("chunked view: %v in %d chunks", r.args, len(r.progress))
	}
}
