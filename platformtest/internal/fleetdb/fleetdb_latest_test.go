package fleetdb_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// machineRows fills credentials (entity key machine) with a history per
// machine; the newest state of m2 is "deleted".
func machineRows(t *testing.T, f *dbFixture) {
	t.Helper()
	rows := []map[string]any{
		{"tsp": worldtest.Ms(0), "machine": "m1", "state": "idle"},
		{"tsp": worldtest.Ms(1 * time.Minute), "machine": "m2", "state": "idle"},
		{"tsp": worldtest.Ms(2 * time.Minute), "machine": "m3", "state": "idle"},
		{"tsp": worldtest.Ms(3 * time.Minute), "machine": "m1", "state": "running"},
		{"tsp": worldtest.Ms(4 * time.Minute), "machine": "m2", "state": "deleted"},
		{"tsp": worldtest.Ms(5 * time.Minute), "machine": "m3", "state": "running"},
		{"tsp": worldtest.Ms(10 * time.Second), "machine": "m4", "state": "idle"},
	}
	f.insert(t, "credentials", rows...)
}

// states returns "machine:state" of rows.
func states(rows []map[string]any) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r["machine"].(string)+":"+r["state"].(string))
	}
	return out
}

var latest = map[string]any{"latest": true}

// TestLatestMarker walks the seed's seven rules of the latest marker.
func TestLatestMarker(t *testing.T) { backends.EachStore(t, testLatestMarker) }

func testLatestMarker(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	machineRows(t, f)
	read := func(query map[string]any) []string {
		t.Helper()
		if _, ok := query["limit"]; !ok {
			query["limit"] = 100
		}
		return states(f.history(t, "credentials", query))
	}
	check := func(rule string, want, got []string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", rule, diff)
		}
	}
	// Rules 1 and 2: the newest row per entity (machine), ascending.
	check("rule 1-2", []string{"m4:idle", "m1:running", "m2:deleted", "m3:running"},
		read(worldtest.Q("filterAnd", worldtest.List(latest))))
	// Offset and limit apply to the latest rows, newest first.
	check("offset/limit", []string{"m1:running", "m2:deleted"},
		read(worldtest.Q("filterAnd", worldtest.List(latest), "offset", 1, "limit", 2)))
	// Rule 4: conditions on entity-key columns narrow the entities.
	check("rule 4", []string{"m1:running", "m3:running"},
		read(worldtest.Q("filterAnd", worldtest.List(latest, worldtest.Pred("machine", "IN", worldtest.List("m1", "m3"))))))
	// Rule 5: other conditions apply to the latest rows: a deleted filter
	// hides m2 instead of showing its older idle row.
	check("rule 5", []string{"m4:idle", "m1:running", "m3:running"},
		read(worldtest.Q("filterAnd", worldtest.List(latest, worldtest.Pred("state", "!=", "deleted")))))
	check("rule 5, idle", []string{"m4:idle"},
		read(worldtest.Q("filterAnd", worldtest.List(latest, worldtest.Pred("state", "=", "idle")))))
	// Rule 5: the time range applies to the latest rows too.
	check("rule 5, time range", []string{"m4:idle", "m1:running"},
		read(worldtest.Q("filterAnd", worldtest.List(latest), "timeRange", worldtest.List(nil, worldtest.Ms(4*time.Minute)))))
	// Rule 6: the legacy condition latest_flag = true is the marker.
	for _, v := range []any{true, "true", 1, "1"} {
		check("rule 6", []string{"m4:idle", "m1:running", "m2:deleted", "m3:running"},
			read(worldtest.Q("filterAnd", worldtest.List(worldtest.Pred("latest_flag", "=", v)))))
	}
	// latest_flag = false is not the marker; the condition is dropped.
	if n := len(read(worldtest.Q("filterAnd", worldtest.List(worldtest.Pred("latest_flag", "=", false))))); n != 7 {
		t.Errorf("latest_flag = false: %d rows, want all 7", n)
	}
	// A marker inside a group counts too.
	check("marker in a group", []string{"m4:idle", "m1:running", "m2:deleted", "m3:running"},
		read(worldtest.Q("filterAnd", worldtest.List(map[string]any{"combinator": "AND", "filters": worldtest.List(latest)}))))
	// The projection adds the entity key with the marker.
	rows := f.history(t, "credentials", worldtest.Q("limit", 10, "filterAnd", worldtest.List(latest), "columns", worldtest.List("state")))
	for _, r := range rows {
		if _, ok := r["machine"]; !ok || r["tsp"] == nil || r["device_key"] == nil || r["authid"] == nil {
			t.Errorf("projected latest row %v lacks the entity key or the implicit columns", r)
		}
		if _, ok := r["api_key"]; ok {
			t.Errorf("projected latest row %v has an unrequested column", r)
		}
	}
	// Rule 7: series refuse the marker and the legacy condition.
	for _, node := range []any{latest, worldtest.Pred("latest_flag", "=", true),
		map[string]any{"combinator": "OR", "filters": worldtest.List(latest)}} {
		worldtest.Call(t, f.c, "history.transformed.series.credentials", worldtest.Q("metrics", worldtest.List(worldtest.Q("ref", "tsp", "method", "COUNT")),
			"limit", 10, "timeRange", worldtest.List(worldtest.Ms(0), worldtest.Ms(time.Hour)), "filterAnd", worldtest.List(node)), nil, false).
			Refused(t, "rule 7", wire.ErrInvalidFilter)
	}
}

// TestLatestWithoutEntityKey is rules 3 and 5 on a table without entity
// key: the marker takes the table's single newest row, then the other
// conditions and the time range apply to it; when it does not match, the
// answer is empty (an older row that matches is not returned). Offset is
// ignored.
func TestLatestWithoutEntityKey(t *testing.T) { backends.EachStore(t, testLatestWithoutEntityKey) }

func testLatestWithoutEntityKey(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.insert(t, "readings",
		map[string]any{"tsp": worldtest.Ms(0), "temp": 1},
		map[string]any{"tsp": worldtest.Ms(time.Minute), "temp": 2},
		map[string]any{"tsp": worldtest.Ms(2 * time.Minute), "temp": 3},
		map[string]any{"tsp": worldtest.Ms(2 * time.Minute), "temp": 4}, // same tsp, inserted later: newer
	)
	temps := func(query map[string]any) []any {
		t.Helper()
		return worldtest.Col(f.history(t, "readings", query), "temp")
	}
	cases := []struct {
		name  string
		query map[string]any
		want  []any
	}{
		{"newest, offset ignored", worldtest.Q("limit", 10, "offset", 3, "filterAnd", worldtest.List(latest)), []any{int64(4)}},
		{"newest matches the condition", worldtest.Q("limit", 10, "filterAnd", worldtest.List(latest, worldtest.Pred("temp", ">", 3))), []any{int64(4)}},
		{"newest does not match: empty", worldtest.Q("limit", 10, "filterAnd", worldtest.List(latest, worldtest.Pred("temp", "<", 3))), []any{}},
		{"newest in the range", worldtest.Q("limit", 10, "filterAnd", worldtest.List(latest), "timeRange", worldtest.List(worldtest.Ms(time.Minute), nil)), []any{int64(4)}},
		{"newest outside the range: empty", worldtest.Q("limit", 10, "filterAnd", worldtest.List(latest), "timeRange", worldtest.List(nil, worldtest.Ms(time.Minute))), []any{}},
		{"limit 0", worldtest.Q("limit", 0, "filterAnd", worldtest.List(latest)), []any{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, temps(tc.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
