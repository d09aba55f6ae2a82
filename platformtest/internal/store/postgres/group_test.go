package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// groupTemplate holds a table with an entity key and one without.
const groupTemplate = `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: note, name: Note, dataType: string}
    - tablename: samples
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: seq, name: Sequence, dataType: numeric}
`

// queued starts append (its outcome on the channel returned) while a
// write of table holds the place in flight, and waits until it waits.
func queued(t *testing.T, pt *pgTable, append func() error) <-chan error {
	t.Helper()
	pt.appends.mu.Lock()
	n := len(pt.appends.waiting)
	pt.appends.mu.Unlock()
	out := make(chan error, 1)
	go func() { out <- append() }()
	waitQueue(t, pt, n+1)
	return out
}

// waitQueue waits until n appends wait in pt's queue.
func waitQueue(t *testing.T, pt *pgTable, n int) {
	t.Helper()
	for {
		pt.appends.mu.Lock()
		got := len(pt.appends.waiting)
		pt.appends.mu.Unlock()
		if got == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// holdWrites takes pt's place in flight, as a write in progress does; the
// function returned hands the appends waiting on, as its end does.
func holdWrites(t *testing.T, pt *pgTable) (release func()) {
	t.Helper()
	q := &pt.appends
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.inFlight != 0 {
		t.Fatalf("%d writes in flight before the test", q.inFlight)
	}
	q.inFlight = maxInFlight
	return func() {
		q.mu.Lock()
		next := q.takeLocked()
		if next == nil {
			q.inFlight--
		}
		q.mu.Unlock()
		if next != nil {
			next[0].next <- next
		}
	}
}

// TestAppendsGrouped: appends that wait behind a write are stored in one
// write (one transaction), each answered; a group that PostgreSQL refuses
// is written again one append at a time, each with its own outcome (a
// conflict refuses only its own append, merges take what was stored
// before them); an append whose context ends while it waits leaves,
// stored nowhere.
func TestAppendsGrouped(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	ctx := context.Background()
	tpl, _, err := template.ParseData([]byte(groupTemplate))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := openScratch(t, url, Config{}).Open(ctx, store.NewSchema("realm-3-33-DEV", tpl))
	if err != nil {
		t.Fatal(err)
	}
	pg := tables.(*pgTables)
	ms := func(s int) int64 { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC).UnixMilli() }
	xmins := func(table string) int {
		t.Helper()
		var n int
		if err := pg.s.pool.QueryRow(ctx, "SELECT count(DISTINCT xmin::text) FROM "+pg.tables[table].name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Twenty appends of a table without entity key: one write.
	samples := pg.tables["samples"]
	release := holdWrites(t, samples)
	var outs []<-chan error
	for i := range 20 {
		outs = append(outs, queued(t, samples, func() error {
			return tables.Append(ctx, "samples", []*store.NewRow{{Vals: []any{ms(i), float64(i), int64(42), "serial"}}})
		}))
	}
	release()
	for i, out := range outs {
		if err := <-out; err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	if n, err := tables.Count(ctx, "samples"); err != nil || n != 20 {
		t.Fatalf("samples: %d rows (%v), want 20", n, err)
	}
	if n := xmins("samples"); n != 1 {
		t.Errorf("the twenty appends took %d transactions, want one", n)
	}

	// A table with an entity key: a group with conflicts.
	reading := func(s int, machine string, note any) *store.NewRow {
		return &store.NewRow{Vals: []any{ms(s), machine, 20.5, note, int64(42), "serial"}, Carry: []bool{3: note == nil}}
	}
	if err := tables.Append(ctx, "readings", []*store.NewRow{reading(0, "m1", "first")}); err != nil {
		t.Fatal(err)
	}
	readings := pg.tables["readings"]
	release = holdWrites(t, readings)
	a := reading(1, "m1", nil)
	d := []*store.NewRow{reading(2, "m3", "d"), reading(3, "m3", nil)}
	appendRows := func(ctx context.Context, rows ...*store.NewRow) func() error {
		return func() error { return tables.Append(ctx, "readings", rows) }
	}
	outA := queued(t, readings, appendRows(ctx, a))
	outB := queued(t, readings, appendRows(ctx, reading(1, "m1", "b"))) // the key and tsp of a
	outC := queued(t, readings, appendRows(ctx, reading(1, "m2", "c")))
	outD := queued(t, readings, appendRows(ctx, d...))
	outE := queued(t, readings, appendRows(ctx, reading(0, "m1", "e"))) // the key and tsp of the stored row
	gone, cancel := context.WithCancel(ctx)
	outF := queued(t, readings, appendRows(gone, reading(5, "m9", "f")))
	cancel()
	if err := <-outF; !errors.Is(err, context.Canceled) {
		t.Errorf("an append whose context ended while it waited: %v", err)
	}
	waitQueue(t, readings, 5)
	release()
	for name, out := range map[string]<-chan error{"a": outA, "c": outC, "d": outD} {
		if err := <-out; err != nil {
			t.Errorf("append %s: %v", name, err)
		}
	}
	for name, out := range map[string]<-chan error{"b": outB, "e": outE} {
		if err := <-out; !errors.Is(err, store.ErrConflict) {
			t.Errorf("append %s: %v, want a conflict", name, err)
		}
	}
	if !a.Merged || a.Vals[3] != "first" {
		t.Errorf("a took note %v (merged %v), want the stored row's \"first\"", a.Vals[3], a.Merged)
	}
	if !d[1].Merged || d[1].Vals[3] != "d" {
		t.Errorf("d's second row took note %v (merged %v), want its first row's \"d\"", d[1].Vals[3], d[1].Merged)
	}
	if n, err := tables.Count(ctx, "readings"); err != nil || n != 5 {
		t.Fatalf("readings: %d rows (%v), want the first, a, c and d's two", n, err)
	}
	if n := xmins("readings"); n != 4 {
		t.Errorf("readings: %d transactions, want 4 (the first row, then a, c and d one by one)", n)
	}
	readings.appends.mu.Lock()
	defer readings.appends.mu.Unlock()
	if q := &readings.appends; q.inFlight != 0 || len(q.waiting) != 0 {
		t.Errorf("after the appends: %d writes in flight, %d waiting", q.inFlight, len(q.waiting))
	}
}
