package fleetdb

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// examiner is a store's Tables that counts the rows its reads look at.
type examiner interface{ Examined() int64 }

// TestReadCostFollowsResult: the rows a read of a store that reads rows in
// Go looks at (its examined counter) depend on the result, not on the
// table's size: the same reads on a table of 1 000 rows and one of 100 000
// rows examine the same number of rows. The data folder's store steps
// over the rows an offset skips (without decoding them). (PostgreSQL
// plans its own reads.)
func TestReadCostFollowsResult(t *testing.T) {
	for _, s := range []unitStore{memoryStore, datadirStore} {
		t.Run("store="+s.name, func(t *testing.T) { testReadCostFollowsResult(t, s) })
	}
}

func testReadCostFollowsResult(t *testing.T, s unitStore) {
	examined := func(size int) map[string]int64 {
		db, b := newUnitDB(t, s)
		mem, ok := b.store.(examiner)
		if !ok {
			t.Fatalf("store %s counts no examined rows", s.name)
		}
		rows := make([]map[string]any, size)
		for i := range rows {
			// The newest 10 rows are the last 10 seconds before t0.
			rows[i] = map[string]any{"tsp": t0.Add(time.Duration(i-size) * time.Second), "temp": i % 7}
		}
		insert(t, db, "readings", rows...)
		machines := make([]map[string]any, 0, size)
		for i := range size {
			machines = append(machines, map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second),
				"machine": fmt.Sprint("m", i%50), "state": "s"})
		}
		insert(t, db, "credentials", machines...)
		cost := map[string]int64{}
		read := func(name, table string, query map[string]any, wantRows int) {
			t.Helper()
			before := mem.Examined()
			if got := len(history(t, b, table, query)); got != wantRows {
				t.Fatalf("%s on %d rows: %d rows, want %d", name, size, got, wantRows)
			}
			cost[name] = mem.Examined() - before
		}
		read("time range", "readings", q("limit", 100, "timeRange", list(ms(-10*time.Second), ms(0))), 10)
		read("newest page", "readings", q("limit", 10, "offset", 20), 10)
		read("filtered range", "readings", q("limit", 100, "timeRange", list(ms(-10*time.Second), ms(0)),
			"filterAnd", list(pred("temp", ">=", 0))), 10)
		read("latest per entity", "credentials", q("limit", 100, "filterAnd", list(latest)), 50)
		read("latest in a range", "credentials", q("limit", 100, "filterAnd", list(latest), "timeRange", list(ms(0), nil)), 50)
		read("latest without entity key", "readings", q("limit", 100, "filterAnd", list(latest)), 1)
		return cost
	}
	small, large := examined(1000), examined(100000)
	if diff := cmp.Diff(small, large); diff != "" {
		t.Errorf("rows examined, 1 000 vs 100 000 rows (-small +large):\n%s", diff)
	}
	want := map[string]int64{"time range": 10, "newest page": 10, "filtered range": 10,
		"latest per entity": 50, "latest in a range": 50, "latest without entity key": 1}
	if s.name == "datadir" {
		want["newest page"] = 30 // 20 stepped over, 10 read
	}
	if diff := cmp.Diff(want, small); diff != "" {
		t.Errorf("rows examined (-want +got):\n%s", diff)
	}
}

// TestInsertOrder: rows inserted out of tsp order, singly or in large
// batches, are kept ordered by (tsp, insertion).
func TestInsertOrder(t *testing.T) { eachStore(t, testInsertOrder) }

func testInsertOrder(t *testing.T, s unitStore) {
	db, _ := newUnitDB(t, s)
	var batch []map[string]any
	for i := range 100 {
		batch = append(batch, map[string]any{"tsp": ms(time.Duration((i*37)%100) * time.Second), "temp": (i * 37) % 100})
	}
	insert(t, db, "readings", batch...)
	insert(t, db, "readings", map[string]any{"tsp": ms(50 * time.Second), "temp": 1000})
	insert(t, db, "readings", map[string]any{"tsp": ms(-time.Second), "temp": -1})
	stored, err := db.TableRows(context.Background(), unitRealm.Name, "readings")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(stored))
	for i, r := range stored {
		got[i] = r["temp"]
	}
	want := []any{int64(-1)}
	for i := range 100 {
		want = append(want, int64(i))
		if i == 50 {
			want = append(want, int64(1000))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// BenchmarkInsertRows measures direct inserts in tsp order (a million
// rows take about a second).
func BenchmarkInsertRows(b *testing.B) {
	db, _ := newUnitDB(b, memoryStore)
	rows := make([]map[string]any, b.N)
	for i := range rows {
		rows[i] = map[string]any{"tsp": t0.Add(time.Duration(i) * time.Millisecond), "temp": float64(i) / 2}
	}
	b.ResetTimer()
	insert(b, db, "readings", rows...)
}

// BenchmarkHistoryRange measures a time-range read of 100 rows on a table
// of 100 000, with the in-process read path (no wire).
func BenchmarkHistoryRange(b *testing.B) {
	db, be := newUnitDB(b, memoryStore)
	rows := make([]map[string]any, 100000)
	for i := range rows {
		rows[i] = map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second), "temp": i}
	}
	insert(b, db, "readings", rows...)
	query, ferr := validateHistory(wireArgs(q("limit", 1000, "timeRange", list(ms(50000*time.Second), ms(50100*time.Second)))))
	if ferr != nil {
		b.Fatal(ferr)
	}
	b.ResetTimer()
	for range b.N {
		if out, err := be.history(context.Background(), be.table("readings"), query); err != nil || len(out) != 100 {
			b.Fatal(len(out), err)
		}
	}
}
