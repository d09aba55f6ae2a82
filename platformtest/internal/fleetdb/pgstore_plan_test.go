package fleetdb

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPostgresPlans: PostgreSQL answers the store's reads with its
// indexes, never by reading a whole table: the newest rows and a time
// range from the (tsp, _seq) index, the latest row per entity from the
// entity key's, the oldest and newest tsp from the tsp index; and a
// series hashes its buckets rather than sorting the rows.
func TestPostgresPlans(t *testing.T) {
	for _, s := range postgresStores(t) {
		t.Run("store="+s.name, func(t *testing.T) { testPostgresPlans(t, s) })
	}
}

func testPostgresPlans(t *testing.T, s unitStore) {
	db, b := newUnitDB(t, s)
	ctx := context.Background()
	const n = 100_000
	rows := make([]map[string]any, n)
	creds := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"tsp": ms(time.Duration(i) * time.Second), "n": i}
		creds[i] = map[string]any{"tsp": ms(time.Duration(i) * time.Second), "machine": "m" + string(rune('a'+i%20)), "state": "ok"}
	}
	insert(t, db, "sensordata", rows...)
	insert(t, db, "credentials", creds...)
	pg := b.store.(*pgTables)
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
	stmt, args := pg.readSQL(sd, &ReadQuery{Limit: 1000}, all(sd))
	explain("the newest 1000 rows", stmt, args, "Index Scan Backward using sensordata_tsp")
	stmt, args = pg.readSQL(sd, &ReadQuery{Limit: 10, Offset: 5, Start: Bound{Set: true, Ms: ms(time.Hour)}, End: Bound{Set: true, Ms: ms(2 * time.Hour)}}, all(sd))
	explain("a time range", stmt, args, "sensordata_tsp")
	stmt, args = pg.readSQL(cr, &ReadQuery{Limit: 10, Latest: true}, all(cr))
	explain("the latest row per entity", stmt, args, "credentials_latest")
	stmt, args = pg.readSQL(sd, &ReadQuery{Limit: 10, Latest: true}, all(sd))
	explain("the newest row of a table without entity key", stmt, args, "Index Scan Backward using sensordata_tsp")
	explain("the span", "SELECT min(tsp), max(tsp) FROM "+sd.name, nil, "sensordata_tsp")
	stmt, args, err := pg.seriesSQL(sd, &SeriesQuery{Start: ms(0), End: ms(n * time.Second), Width: n * 10, MaxGroups: seriesGroupCap,
		Metrics: []SeriesMetric{{SeriesRef: SeriesRef{Col: 1}, Method: "AVG"}}})
	if err != nil {
		t.Fatal(err)
	}
	explain("a series of the whole table", stmt, args, "HashAggregate")
	stmt, args, _ = pg.seriesSQL(sd, &SeriesQuery{Start: ms(time.Hour), End: ms(2 * time.Hour), Width: 60_000, MaxGroups: seriesGroupCap,
		Metrics: []SeriesMetric{{SeriesRef: SeriesRef{Col: 1}, Method: "SUM"}}})
	explain("a series of an hour", stmt, args, "sensordata_tsp")
}
