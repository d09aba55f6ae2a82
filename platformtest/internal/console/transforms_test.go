package console_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// transformTemplate is dataTemplate with a materialized transform on a
// schedule and a plain view.
const transformTemplate = dataTemplate + `  transforms:
    - tablename: per_sensor
      materialize: true
      schedule: "0 * * * *"
      sql: SELECT sensor, count(*) AS n FROM readings GROUP BY sensor
      columns:
        - {id: sensor, dataType: string}
        - {id: n, dataType: bigint}
    - tablename: hottest
      sql: SELECT max(celsius) AS celsius FROM readings
      columns:
        - {id: celsius, dataType: numeric}
`

// transformWorld is a platform with the console (writable or not), app
// "sensors" (transformTemplate) on one device, and more options.
func transformWorld(t *testing.T, write bool, opts ...platformtest.Option) *world {
	t.Helper()
	p := platformtest.New(t, append([]platformtest.Option{platformtest.WithConsole(platformtest.Console{Write: write})}, opts...)...)
	d := p.AddProject("factory").AddDevice("press-1")
	w := &world{p: p, in1: p.Install(d, p.AddApp("sensors", transformTemplate), platformtest.Dev)}
	w.realm = w.in1.Realm()
	w.http = &http.Client{Timeout: 20 * time.Second}
	return w
}

// TestTablesPageTransforms: the tables page lists each realm's transforms
// with their kind, schedule and last refresh, and a writable console
// refreshes one with a button; a read-only one refuses. With PostgreSQL
// the refresh computes the transform again (rows appended since are in
// it) and the overview names the server and database, never a password.
func TestTablesPageTransforms(t *testing.T) {
	w := transformWorld(t, true)
	_, page := w.get(t, "/tables")
	want := [][]string{{"hottest", "view", "none", "computed on read", "Refresh"}, {"per_sensor", "materialized", "0 * * * *", "not said", "Refresh"}}
	if d := cmp.Diff(want, tableCells(t, page, "transforms-"+w.realm)); d != "" {
		t.Errorf("transforms in memory (-want +got):\n%s", d)
	}
	if status, page := w.post(t, "/tables/"+w.realm+"/transforms/per_sensor/refresh", url.Values{}); status != 200 || !strings.Contains(page, "transforms-"+w.realm) {
		t.Errorf("refresh: %d\n%s", status, page)
	}
	if status, _ := w.post(t, "/tables/"+w.realm+"/transforms/ghost/refresh", url.Values{}); status != 404 {
		t.Errorf("refresh of an unknown transform: %d", status)
	}
	ro := transformWorld(t, false)
	if status, _ := ro.post(t, "/tables/"+ro.realm+"/transforms/per_sensor/refresh", url.Values{}); status != 403 {
		t.Errorf("refresh on a read-only console: %d", status)
	}
	if _, page := ro.get(t, "/tables"); !strings.Contains(page, "refresh: -console-write") {
		t.Errorf("a read-only console offers a refresh:\n%s", page)
	}

	dbURL := storetest.PostgresURL(t)
	if dbURL == "" {
		return
	}
	t.Run("store=postgres", func(t *testing.T) {
		w := transformWorld(t, true, platformtest.WithPostgres(dbURL, platformtest.PostgresScratch()))
		if err := w.p.InsertRows(w.in1, "readings", map[string]any{"tsp": t0, "sensor": "s1", "celsius": 20.0}); err != nil {
			t.Fatal(err)
		}
		sqlURL, err := w.p.SQLURL(w.realm)
		if err != nil {
			t.Fatal(err)
		}
		count := func() int {
			t.Helper()
			conn, err := pgx.Connect(testCtx(t), sqlURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(testCtx(t))
			var n int
			if err := conn.QueryRow(testCtx(t), "SELECT count(*) FROM per_sensor").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 0 {
			t.Fatalf("per_sensor holds %d rows before a refresh (the test needs it stale)", n)
		}
		_, page := w.get(t, "/tables")
		cells := tableCells(t, page, "transforms-"+w.realm)
		if len(cells) != 2 || cells[1][0] != "per_sensor" || cells[1][3] == "not said" {
			t.Errorf("transforms on PostgreSQL: %q", cells)
		}
		if status, page := w.post(t, "/tables/"+w.realm+"/transforms/per_sensor/refresh", url.Values{}); status != 200 {
			t.Errorf("refresh: %d\n%s", status, page)
		}
		if n := count(); n != 1 {
			t.Errorf("per_sensor holds %d rows after the refresh, want 1", n)
		}
		_, page = w.get(t, "/")
		page = html.UnescapeString(page)
		if !regexp.MustCompile(`<span id="storage-tables">PostgreSQL at [^ ]+:[0-9]+ database "[^"]+"`).MatchString(page) || strings.Contains(page, "postgres://") {
			t.Errorf("the overview does not name the PostgreSQL server and database alone:\n%s", page)
		}
	})
}
