package fleetdb_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// transformTemplate has a plain view with time_bucket, a materialized
// view with GROUP BY refreshed every five minutes, and one bucketed by
// month.
const transformTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
        - {id: sensor, dataType: string}
  transforms:
    - tablename: hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, avg(temp) AS mean, count(*) AS n FROM readings GROUP BY 1 ORDER BY 1 DESC
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: mean, dataType: numeric}
        - {id: n, dataType: bigint}
    - tablename: by_sensor
      materialize: true
      schedule: "*/5 * * * *"
      sql: |
        SELECT sensor, max(temp) AS hottest, count(*) AS n
        FROM readings GROUP BY sensor ORDER BY sensor
      columns:
        - {id: sensor, dataType: string}
        - {id: hottest, dataType: numeric}
        - {id: n, dataType: bigint}
    - tablename: monthly
      sql: SELECT time_bucket('1 month', tsp) AS tsp, count(*) AS n FROM readings GROUP BY 1 ORDER BY 1 DESC
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: n, dataType: bigint}
`

// TestTransformsComputed: PostgreSQL computes transforms from their SQL:
// time_bucket (the store's own on plain PostgreSQL, months included) and
// GROUP BY answer computed rows, read with the transform rules; a
// materialized view keeps its content until its schedule ticks on the
// platform clock, which refreshes it and publishes it on
// transformed.<transform>; its rows cannot be set.
func TestTransformsComputed(t *testing.T) { worldtest.EachPostgres(t, testTransformsComputed) }

func testTransformsComputed(t *testing.T, url string) {
	leakcheck.Check(t) // the pool's and the schedules' goroutines end with the platform
	w := newPGWorld(t, url, transformTemplate)
	at := func(d time.Duration) time.Time { return worldtest.T0.Add(d) }
	w.insert(t, "readings",
		map[string]any{"tsp": time.Date(2025, 12, 15, 8, 0, 0, 0, time.UTC), "temp": 10, "sensor": "s1"},
		map[string]any{"tsp": at(-2*time.Hour + 10*time.Minute), "temp": 20, "sensor": "s1"},
		map[string]any{"tsp": at(-2*time.Hour + 40*time.Minute), "temp": 22, "sensor": "s2"},
		map[string]any{"tsp": at(-time.Hour + 5*time.Minute), "temp": 25, "sensor": "s1"},
		map[string]any{"tsp": at(-10 * time.Minute), "temp": 21.5, "sensor": "s2"},
		map[string]any{"tsp": at(30 * time.Minute), "temp": 19, "sensor": "s2"},
	)
	hourly := w.read(t, "hourly", worldtest.Q("limit", 10))
	want := []map[string]any{
		{"tsp": "2025-12-15T08:00:00.000Z", "mean": int64(10), "n": int64(1)},
		{"tsp": worldtest.ISO(-2 * time.Hour), "mean": int64(21), "n": int64(2)},
		{"tsp": worldtest.ISO(-time.Hour), "mean": 23.25, "n": int64(2)},
		{"tsp": worldtest.ISO(0), "mean": int64(19), "n": int64(1)},
	}
	if d := cmp.Diff(want, hourly); d != "" {
		t.Errorf("hourly, ascending (-want +got):\n%s", d)
	}
	if got := worldtest.Col(w.read(t, "hourly", worldtest.Q("limit", 10, "filterAnd", worldtest.List(worldtest.Pred("n", "=", 2), worldtest.Pred("mean", ">", 22)))), "tsp"); !cmp.Equal(got, []any{worldtest.ISO(-time.Hour)}) {
		t.Errorf("filtered on declared columns: %v", got)
	}
	if got := worldtest.Col(w.read(t, "hourly", worldtest.Q("limit", 2, "offset", 1)), "tsp"); !cmp.Equal(got, []any{worldtest.ISO(-2 * time.Hour), worldtest.ISO(-time.Hour)}) {
		t.Errorf("offset and limit over the view's order: %v", got)
	}
	monthly := w.read(t, "monthly", worldtest.Q("limit", 10))
	if d := cmp.Diff([]map[string]any{
		{"tsp": "2025-12-01T00:00:00.000Z", "n": int64(5)},
		{"tsp": worldtest.ISO(0), "n": int64(1)},
	}, monthly); d != "" {
		t.Errorf("monthly buckets (-want +got):\n%s", d)
	}

	// The materialized view was computed when the realm's storage opened,
	// before the rows: it waits for its schedule.
	if rows := w.read(t, "by_sensor", worldtest.Q("limit", 10)); len(rows) != 0 {
		t.Errorf("materialized view before its refresh: %v", rows)
	}
	feed := worldtest.Subscribe(t, w.c, "transformed.by_sensor")
	w.p.Clock().Advance(5 * time.Minute)
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	ev := worldtest.NextEvent(t, feed, "the schedule's tick")
	wantView := []map[string]any{
		{"sensor": "s1", "hottest": int64(25), "n": int64(3)},
		{"sensor": "s2", "hottest": int64(22), "n": int64(3)},
	}
	if d := cmp.Diff([]any{wantView[1], wantView[0]}, ev[0]); d != "" {
		t.Errorf("tick event, the view reversed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]map[string]any{wantView[1], wantView[0]}, w.read(t, "by_sensor", worldtest.Q("limit", 10))); d != "" {
		t.Errorf("refreshed view (-want +got):\n%s", d)
	}
	w.insert(t, "readings", map[string]any{"tsp": at(time.Hour), "temp": 30, "sensor": "s3"})
	if rows := w.read(t, "by_sensor", worldtest.Q("limit", 10)); len(rows) != 2 {
		t.Errorf("between ticks the view keeps its rows: %v", rows)
	}
	if err := w.p.RunSchedules(); err != nil { // nothing due
		t.Fatal(err)
	}
	w.p.Clock().Advance(5 * time.Minute)
	if err := w.p.RunSchedules(); err != nil {
		t.Fatal(err)
	}
	if ev := worldtest.NextEvent(t, feed, "the next tick"); len(ev[0].([]any)) != 3 {
		t.Errorf("second tick: %v", ev)
	}
	if err := w.p.SetTransformRows(w.realm, "by_sensor", nil); !errors.Is(err, store.ErrNotSupported) {
		t.Errorf("SetTransformRows on a computed transform: %v", err)
	}
}

// TestTransformRefused: a transform whose SQL PostgreSQL refuses fails
// the installation that opens the realm, with the app, the transform,
// PostgreSQL's message and where in the SQL it points; so does a
// transform whose SQL lacks a declared column.
func TestTransformRefused(t *testing.T) { worldtest.EachPostgres(t, testTransformRefused) }

func testTransformRefused(t *testing.T, url string) {
	cases := []struct {
		name, sql string
		want      []string
	}{
		{"unknown column", "SELECT tsp,\n  tmep AS temp\nFROM readings", []string{`app "broken"`, `transform "bad"`,
			`column "tmep" does not exist (SQLSTATE 42703) at line 2, column 3 of its SQL`}},
		{"syntax", "SELECT tsp temp FROM FROM readings", []string{`transform "bad"`, `syntax error at or near "FROM" (SQLSTATE 42601) at line 1, column 22`}},
		{"two statements", "SELECT tsp, temp FROM readings; DROP TABLE readings", []string{`transform "bad"`, "cannot insert multiple commands"}},
		{"declared column missing", "SELECT tsp FROM readings", []string{`transform "bad": its SQL gives no column "temp", which its columns declare`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
  transforms:
    - tablename: bad
      sql: "` + strings.ReplaceAll(tc.sql, "\n", `\n`) + `"
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
`
			p, err := platformtest.Start(platformtest.WithPostgres(url, platformtest.PostgresScratch()))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.Apply(&platformtest.Seed{
				Projects:      []platformtest.SeedProject{{Name: "plant", Devices: []platformtest.SeedDevice{{Name: "press"}}}},
				Apps:          []platformtest.SeedApp{{Name: "broken", DataTemplate: tpl}},
				Installations: []platformtest.SeedInstallation{{Project: "plant", Device: "press", App: "broken"}},
			})
			if err == nil {
				t.Fatal("the installation succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
