package fleetdb

import (
	"context"
	"testing"
	"time"
)

// TestRowCount: every store counts the rows it holds over every table of
// every realm (the console's overview shows it), whichever store it is.
func TestRowCount(t *testing.T) { eachStore(t, testRowCount) }

func testRowCount(t *testing.T, s unitStore) {
	db, _ := newUnitDB(t, s)
	ctx := context.Background()
	if n, ok, err := db.Rows(ctx); err != nil || !ok || n != 0 {
		t.Fatalf("Rows before any insert: %d, %v, %v; want 0, true", n, ok, err)
	}
	for i := range 3 {
		insert(t, db, "readings", map[string]any{"tsp": ms(time.Duration(i) * time.Second), "temp": 20.5})
	}
	insert(t, db, "sensordata", map[string]any{"tsp": ms(0), "n": 1}, map[string]any{"tsp": ms(time.Second), "n": 2})
	if n, ok, err := db.Rows(ctx); err != nil || !ok || n != 5 {
		t.Errorf("Rows: %d, %v, %v; want 5 (3 readings, 2 sensordata), true", n, ok, err)
	}
}
