package outbox

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/client"
)

// The rows the sender looks up at start are those Open found queued, at
// most one batch per table: never rows this run appends, however late the
// sender goroutine gets to run (it once listed the tables itself when it
// started, and took this run's first rows for an earlier run's).
func TestStartLookupCoversOnlyRowsLeftBehind(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := client.New(client.WithLogger(quiet), client.WithEnv(map[string]string{
		"DEVICE_SERIAL_NUMBER": "offline", "SWARM_KEY": "1", "APP_KEY": "1", "DEVICE_ENDPOINT_URL": "ws://127.0.0.1:1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer func() { _ = c.Stop(ctx) }()
	plan := func(t *testing.T, dir string, opts ...Option) map[string]int {
		t.Helper()
		db, _, err := openDB(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		got, err := (&Outbox{db: db, set: settingsOf(opts)}).load() // as Open does
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	appendRows := func(t *testing.T, dir string, rows map[string]int) {
		t.Helper()
		ob, err := Open(c, dir, WithIDColumn("row_id"), WithLogger(quiet), WithBatch(2, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer ob.Close()
		for table, n := range rows {
			for i := range n {
				if _, err := ob.Append(ctx, table, map[string]any{"tsp": time.Unix(0, 0), "n": i}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	empty := cmpopts.EquateEmpty()

	if got := plan(t, t.TempDir(), WithIDColumn("row_id")); !cmp.Equal(got, map[string]int{}, empty) {
		t.Errorf("a new directory: lookups planned %v, want none", got)
	}
	// An earlier run (batches of 2, the client never connected) left rows.
	dir := t.TempDir()
	appendRows(t, dir, map[string]int{"readings": 3, "events": 1})
	if diff := cmp.Diff(map[string]int{"readings": 2, "events": 1}, plan(t, dir, WithIDColumn("row_id"), WithBatch(2, 1<<20))); diff != "" {
		t.Errorf("rows left by a run of batches of 2 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"readings": 3, "events": 1}, plan(t, dir, WithIDColumn("row_id"))); diff != "" {
		t.Errorf("rows left, batches of 500 now (-want +got):\n%s", diff)
	}
	if got := plan(t, dir); !cmp.Equal(got, map[string]int{}, empty) {
		t.Errorf("without an id column: lookups planned %v, want none", got)
	}
}
