package fleetdb

import (
	"context"
	"testing"
	"time"
)

// TestSeriesGroupCap: 50 000 answer rows are allowed, checked inside (the
// answer is large); one more is refused, over the wire in package
// platformtest (TestSeriesTooManyGroups).
func TestSeriesGroupCap(t *testing.T) { eachStore(t, testSeriesGroupCap) }

func testSeriesGroupCap(t *testing.T, s unitStore) {
	db, b := newUnitDB(t, s)
	rows := make([]map[string]any, 50001)
	for i := range rows {
		rows[i] = map[string]any{"tsp": ms(0), "n": i}
	}
	insert(t, db, "sensordata", rows...)
	query := q("limit", 1, "timeRange", list(ms(0), ms(time.Second)), "metrics", list(q("ref", "tsp", "method", "COUNT")), "groupBy", list("n"))
	query["filterAnd"] = list(pred("n", "<", 50000))
	sq, err := validateSeries(wireArgs(query))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := b.series(context.Background(), b.table("sensordata"), sq, ms(time.Hour)); err != nil || len(out) != 50000 {
		t.Errorf("%d rows, %v; want 50000", len(out), err)
	}
}
