package fleetdb_test

import (
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/google/go-cmp/cmp"
)

// knobsTemplate has a table with dropAfter and hourly downsampling (a
// path into a json column too), read through a transform of the
// downsampled table, and one whose dropAfter is shorter than its bucket.
const knobsTemplate = `
data:
  tables:
    - tablename: metrics
      dropAfter: 2 hours
      chunkTimeInterval: 1 day
      columnstore: true
      downsample: {bucket: 1 hour, keepFor: 1 day, paths: [payload.v]}
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: value, dataType: numeric}
        - {id: n, dataType: bigint}
        - {id: payload, dataType: json}
        - {id: label, dataType: string}
    - tablename: fast
      dropAfter: 10 minutes
      downsample: {bucket: 1 day}
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: value, dataType: numeric}
  transforms:
    - tablename: metrics_hourly
      sql: >-
        SELECT tsp, device_key, rows, value_avg, value_min, value_max, value_count, n_max, payload_v_avg
        FROM metrics_ds ORDER BY tsp DESC, device_key DESC
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: rows, dataType: bigint}
    - tablename: fast_daily
      sql: SELECT tsp, rows, value_avg FROM fast_ds ORDER BY tsp DESC
      columns:
        - {id: tsp, dataType: timestamp}
`

// TestRetentionAndDownsample: under the test clock, the hourly
// maintenance downsamples complete buckets into <table>_ds (avg, min,
// max and count of each numeric and bigint column and of the listed
// json paths, per bucket and device), then drops the rows older than
// dropAfter as TimescaleDB does, by whole chunks (chunkTimeInterval, 7
// days by default, aligned to the Unix epoch): a row goes once all of its
// chunk is older than dropAfter, never while its bucket is not
// downsampled yet; a late row into a downsampled bucket is counted at the
// next run; and it drops the downsampled rows older than keepFor.
func TestRetentionAndDownsample(t *testing.T) { worldtest.EachPostgres(t, testRetentionAndDownsample) }

func testRetentionAndDownsample(t *testing.T, url string) {
	w := newPGWorld(t, url, knobsTemplate)
	var rows []map[string]any
	for i := range 18 { // every 10 minutes from t0-2h55m to t0-5m
		r := map[string]any{"tsp": worldtest.T0.Add(-3*time.Hour + time.Duration(5+10*i)*time.Minute), "value": float64(i), "n": i,
			"payload": map[string]any{"v": 2 * i}, "label": "x"}
		if i == 17 {
			r["device_key"] = 43
		}
		rows = append(rows, r)
	}
	w.insert(t, "metrics", rows...)
	w.insert(t, "fast", map[string]any{"tsp": worldtest.T0.Add(5 * time.Minute), "value": 1}, map[string]any{"tsp": worldtest.T0.Add(30 * time.Minute), "value": 2})

	w.p.Clock().Advance(time.Hour) // the hourly maintenance at t0+1h
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	hourly := w.read(t, "metrics_hourly", worldtest.Q("limit", 10))
	bucket := func(start time.Duration, dev int64, n, lo, hi int64) map[string]any {
		avg := float64(lo+hi) / 2
		return map[string]any{"tsp": worldtest.ISO(start), "device_key": dev, "rows": n, "value_avg": numberWire(avg),
			"value_min": lo, "value_max": hi, "value_count": n, "n_max": hi, "payload_v_avg": numberWire(2 * avg)}
	}
	want := []map[string]any{
		bucket(-3*time.Hour, 42, 6, 0, 5),
		bucket(-2*time.Hour, 42, 6, 6, 11),
		bucket(-time.Hour, 42, 5, 12, 16),
		bucket(-time.Hour, 43, 1, 17, 17),
	}
	if d := cmp.Diff(want, hourly); d != "" {
		t.Errorf("metrics_ds after the first run (-want +got):\n%s", d)
	}
	// Rows up to 3h55m old, past dropAfter 2 hours, stay: their daily
	// chunk [t0-1d, t0) ends after t0+1h-2h.
	if got := w.p.TableRows(w.realm, "metrics"); len(got) != 18 {
		t.Errorf("metrics at t0+1h: %d rows, want all 18 (their chunk is not all older than dropAfter)", len(got))
	}
	if got := w.p.TableRows(w.realm, "fast"); len(got) != 2 {
		t.Errorf("fast: rows of a bucket not downsampled yet were dropped: %v", got)
	}
	if got := w.read(t, "fast_daily", worldtest.Q("limit", 10)); len(got) != 0 {
		t.Errorf("fast_ds before its bucket is complete: %v", got)
	}

	// A late row into a bucket downsampled already: not shown until the
	// next run (materialized only), which counts the bucket again, as a
	// continuous aggregate's refresh does, before the retention drops its
	// rows.
	w.insert(t, "metrics", map[string]any{"tsp": worldtest.T0.Add(-90 * time.Minute), "value": 100, "n": 100, "payload": map[string]any{"v": 200}, "label": "x"})
	if d := cmp.Diff(want, w.read(t, "metrics_hourly", worldtest.Q("limit", 10))); d != "" {
		t.Errorf("metrics_ds with a late row before the next run (-want +got):\n%s", d)
	}

	w.p.Clock().Advance(time.Hour) // t0+2h: all of the chunk is older than dropAfter
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	if got := w.p.TableRows(w.realm, "metrics"); len(got) != 0 {
		t.Errorf("metrics at t0+2h, their chunk past dropAfter: %v", got)
	}
	want[1] = map[string]any{"tsp": worldtest.ISO(-2 * time.Hour), "device_key": int64(42), "rows": int64(7), "value_avg": 151.0 / 7,
		"value_min": int64(6), "value_max": int64(100), "value_count": int64(7), "n_max": int64(100), "payload_v_avg": 302.0 / 7}
	if d := cmp.Diff(want, w.read(t, "metrics_hourly", worldtest.Q("limit", 10))); d != "" {
		t.Errorf("metrics_ds after the next run, the late row counted (-want +got):\n%s", d)
	}

	w.p.Clock().Advance(24 * time.Hour)
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	if got := w.read(t, "metrics_hourly", worldtest.Q("limit", 10)); len(got) != 0 {
		t.Errorf("metrics_ds after keepFor 1 day: %v", got)
	}
	if d := cmp.Diff([]map[string]any{{"tsp": worldtest.ISO(0), "rows": int64(2), "value_avg": 1.5}}, w.read(t, "fast_daily", worldtest.Q("limit", 10))); d != "" {
		t.Errorf("fast_ds (-want +got):\n%s", d)
	}
	// fast is downsampled and past dropAfter 10 minutes, but its rows are
	// in the default 7-day chunk [t0, t0+7d) (t0 is a Thursday, as the
	// Unix epoch was): they stay until all of it is older than dropAfter.
	if got := w.p.TableRows(w.realm, "fast"); len(got) != 2 {
		t.Errorf("fast at t0+26h, inside its 7-day chunk: %d rows, want 2", len(got))
	}
	w.p.Clock().Advance(6 * 24 * time.Hour) // t0+7d+2h
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	if got := w.p.TableRows(w.realm, "fast"); len(got) != 0 {
		t.Errorf("fast once its 7-day chunk is past dropAfter: %v", got)
	}
}

// numberWire is a float as reads send it: whole numbers as integers.
func numberWire(f float64) any {
	if f == float64(int64(f)) {
		return int64(f)
	}
	return f
}
