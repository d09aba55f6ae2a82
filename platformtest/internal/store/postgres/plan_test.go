package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// TestPostgresPlans: PostgreSQL answers the store's reads with its
// indexes, never by reading a whole table: the newest rows and a time
// range from the (tsp, _seq) index, the latest row per entity from the
// entity key's, the oldest and newest tsp from the tsp index; and a
// series hashes its buckets rather than sorting the rows.
func TestPostgresPlans(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	ctx := context.Background()
	tpl, _, err := template.ParseData([]byte(plansTemplate))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := openScratch(t, url, Config{}).Open(ctx, store.NewSchema("realm-2-26-DEV", tpl))
	if err != nil {
		t.Fatal(err)
	}
	ms := func(d time.Duration) int64 { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(d).UnixMilli() }
	const n = 100_000
	rows := make([]*store.NewRow, n)
	creds := make([]*store.NewRow, n)
	for i := range rows {
		tsp := ms(time.Duration(i) * time.Second)
		rows[i] = &store.NewRow{Vals: []any{tsp, int64(i), int64(42), "serial"}}
		creds[i] = &store.NewRow{Vals: []any{tsp, "m" + string(rune('a'+i%20)), "ok", int64(42), "serial"}}
	}
	if err := tables.Append(ctx, "sensordata", rows); err != nil {
		t.Fatal(err)
	}
	if err := tables.Append(ctx, "credentials", creds); err != nil {
		t.Fatal(err)
	}
	pg := tables.(*pgTables)
	for _, table := range []string{"sensordata", "credentials"} {
		if _, err := pg.s.pool.Exec(ctx, "ANALYZE "+pg.tables[table].name); err != nil {
			t.Fatal(err)
		}
	}
	explain := func(what, stmt string, args sqlArgs, want ...string) {
		t.Helper()
		var lines []string
		r, err := pg.s.pool.Query(ctx, "EXPLAIN "+stmt, args...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for r.Next() {
			var line string
			if err := r.Scan(&line); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, line)
		}
		plan := strings.Join(lines, "\n")
		for _, w := range want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: the plan lacks %q:\n%s", what, w, plan)
			}
		}
		if strings.Contains(plan, "Seq Scan") && !strings.Contains(what, "series") {
			t.Errorf("%s reads the whole table:\n%s", what, plan)
		}
	}
	sd, cr := pg.tables["sensordata"], pg.tables["credentials"]
	all := func(pt *pgTable) []int {
		cols := make([]int, len(pt.cols))
		for i := range cols {
			cols[i] = i
		}
		return cols
	}
	stmt, args := pg.readSQL(sd, &store.ReadQuery{Limit: 1000}, all(sd))
	explain("the newest 1000 rows", stmt, args, "Index Scan Backward using sensordata_tsp")
	stmt, args = pg.readSQL(sd, &store.ReadQuery{Limit: 10, Offset: 5, Start: store.Bound{Set: true, Ms: ms(time.Hour)}, End: store.Bound{Set: true, Ms: ms(2 * time.Hour)}}, all(sd))
	explain("a time range", stmt, args, "sensordata_tsp")
	stmt, args = pg.readSQL(cr, &store.ReadQuery{Limit: 10, Latest: true}, all(cr))
	explain("the latest row per entity", stmt, args, "credentials_latest")
	stmt, args = pg.readSQL(sd, &store.ReadQuery{Limit: 10, Latest: true}, all(sd))
	explain("the newest row of a table without entity key", stmt, args, "Index Scan Backward using sensordata_tsp")
	explain("the span", "SELECT min(tsp), max(tsp) FROM "+sd.name, nil, "sensordata_tsp")
	stmt, args, err = pg.seriesSQL(sd, &store.SeriesQuery{Start: ms(0), End: ms(n * time.Second), Width: n * 10, MaxGroups: 50_000,
		Metrics: []store.SeriesMetric{{SeriesRef: store.SeriesRef{Col: 1}, Method: "AVG"}}})
	if err != nil {
		t.Fatal(err)
	}
	explain("a series of the whole table", stmt, args, "HashAggregate")
	stmt, args, _ = pg.seriesSQL(sd, &store.SeriesQuery{Start: ms(time.Hour), End: ms(2 * time.Hour), Width: 60_000, MaxGroups: 50_000,
		Metrics: []store.SeriesMetric{{SeriesRef: store.SeriesRef{Col: 1}, Method: "SUM"}}})
	explain("a series of an hour", stmt, args, "sensordata_tsp")
}

// plansTemplate holds a table without and one with an entity key.
const plansTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: n, name: Count, dataType: bigint}
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
`
