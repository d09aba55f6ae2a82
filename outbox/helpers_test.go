// This file holds the fixture the tests of the package share: a fake
// platform whose app declares two tables with an id column, a client of
// it, and helpers to open an outbox and read what the backend stored.

package outbox_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// appTemplate declares the tables the tests write: readings and events
// carry the row id in row_id; plain has no id column; keyed has an entity
// key (machine).
const appTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
        - {id: n, name: Number, dataType: bigint}
        - {id: temp, name: Temperature, dataType: numeric}
    - tablename: events
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
        - {id: n, name: Number, dataType: bigint}
    - tablename: plain
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: n, name: Number, dataType: bigint}
    - tablename: keyed
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
        - {id: machine, name: Machine, dataType: string}
        - {id: n, name: Number, dataType: bigint}
`

// reading is a row of readings and events.
type reading struct {
	Tsp  time.Time `json:"tsp"`
	N    int64     `json:"n"`
	Temp float64   `json:"temp,omitempty"`
}

// t0 is the tsp of every row the tests write unless they need others:
// with one tsp, the stored order is the insertion order.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture is a platform with the app installed on one device and a
// client of it.
type fixture struct {
	p  *platformtest.Platform
	in *platformtest.Installation
	c  *client.Client
}

func newFixture(t testing.TB, copts ...client.Option) *fixture {
	t.Helper()
	p := platformtest.New(t, platformtest.WithoutRecording())
	in := p.Install(p.AddDevice("gateway"), p.AddApp("telemetry", appTemplate), platformtest.Dev)
	c := clienttest.Start(t, in, append([]client.Option{client.WithLogger(quiet), client.WithReconnectBackoff(20*time.Millisecond, 100*time.Millisecond)}, copts...)...)
	return &fixture{p: p, in: in, c: c}
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// open opens an outbox of f's client in dir (a new temporary directory
// when empty), with the id column row_id, closed when the test ends.
func (f *fixture) open(t testing.TB, dir string, opts ...outbox.Option) *outbox.Outbox {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	opts = append([]outbox.Option{outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet), outbox.WithRetryBackoff(10*time.Millisecond, 50*time.Millisecond)}, opts...)
	ob, err := outbox.Open(f.c, dir, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := ob.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ob
}

// rows returns the stored rows of table, oldest first.
func (f *fixture) rows(table string) []map[string]any {
	return f.p.TableRows(f.in.Realm(), table)
}

// column returns one column of the stored rows of table.
func (f *fixture) column(table, col string) []any {
	var out []any
	for _, r := range f.rows(table) {
		out = append(out, r[col])
	}
	return out
}

// wantN checks the n column of the stored rows of table, in order.
func (f *fixture) wantN(t testing.TB, table string, want ...int64) {
	t.Helper()
	if diff := cmp.Diff(want, ints(f.column(table, "n")), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s n (-want +got):\n%s", table, diff)
	}
}

// hold holds the next bulk append to table until the interception is
// cancelled (at the latest when the test ends) and waits until it came.
func (f *fixture) hold(t testing.TB, table string, until func()) *platformtest.Interception {
	t.Helper()
	h := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: f.bulkProc(table), Hang: true, Times: 1})
	t.Cleanup(h.Cancel)
	until()
	if err := h.Wait(ctxT(t), 1); err != nil {
		t.Fatal(err)
	}
	return h
}

// ctxT is a context that ends with the test, bounded as a hang guard.
func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// appendN appends n readings numbered from first, failing the test on an
// error, and returns their ids.
func appendN(t testing.TB, ob *outbox.Outbox, table string, first, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		id, err := ob.Append(ctxT(t), table, reading{Tsp: t0, N: int64(first + i)})
		if err != nil {
			t.Fatalf("Append %d: %v", first+i, err)
		}
		ids[i] = id
	}
	return ids
}

// flush flushes ob, failing the test on an error.
func flush(t testing.TB, ob *outbox.Outbox) {
	t.Helper()
	if err := ob.Flush(ctxT(t)); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// ints converts numbers read back to int64s.
func ints(vals []any) []int64 {
	out := make([]int64, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case int64:
			out[i] = x
		case float64:
			out[i] = int64(x)
		}
	}
	return out
}

// seq returns first, first+1, … n numbers.
func seq(first, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(first + i)
	}
	return out
}
