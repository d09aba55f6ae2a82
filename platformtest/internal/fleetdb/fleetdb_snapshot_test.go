package fleetdb_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/google/go-cmp/cmp"
)

// TestTransformSnapshots: each refresh of a transform publishes one event
// on transformed.<transform> whose args[0] is the whole view (a snapshot
// of the transform's result, view order reversed, typed as reads type
// it), not the rows that changed: after the source grows, the next event
// holds the old rows and the new ones; a refresh of an unchanged view
// publishes it whole again.
func TestTransformSnapshots(t *testing.T) { backends.EachStore(t, testTransformSnapshots) }

func testTransformSnapshots(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	feed := worldtest.Subscribe(t, f.c2, "transformed.sensordata_hourly")
	var source, view []map[string]any
	hour := func(i int) {
		at := worldtest.T0.Add(time.Duration(i) * time.Hour)
		source = append(source, map[string]any{"tsp": at, "temperature": 20 + i, "source": fmt.Sprint("h", i), "n": i})
		// The view, newest first as its SQL orders it.
		view = append([]map[string]any{{"tsp": at, "avg_temp": 20 + i, "label": fmt.Sprint("h", i), "extra": i}}, view...)
	}
	want := func(n int) []any {
		var rows []any
		for i := range n { // reversed: oldest first
			rows = append(rows, map[string]any{"tsp": worldtest.ISO(time.Duration(i) * time.Hour), "avg_temp": int64(20 + i),
				"label": fmt.Sprint("h", i), "extra": int64(i)})
		}
		return []any{rows}
	}
	for i := range 3 {
		hour(i)
	}
	f.insert(t, "sensordata", source...)
	f.transform(t, "sensordata_hourly", view)
	if diff := cmp.Diff(want(3), worldtest.NextEvent(t, feed, "first refresh")); diff != "" {
		t.Errorf("first snapshot (-want +got):\n%s", diff)
	}
	// Two more hours: the next refresh carries all five rows.
	source = nil
	hour(3)
	hour(4)
	f.insert(t, "sensordata", source...)
	f.transform(t, "sensordata_hourly", view)
	if diff := cmp.Diff(want(5), worldtest.NextEvent(t, feed, "second refresh")); diff != "" {
		t.Errorf("second snapshot, the whole view (-want +got):\n%s", diff)
	}
	// A refresh of an unchanged view publishes it again, whole.
	f.transform(t, "sensordata_hourly", view)
	if diff := cmp.Diff(want(5), worldtest.NextEvent(t, feed, "third refresh")); diff != "" {
		t.Errorf("unchanged snapshot (-want +got):\n%s", diff)
	}
}
