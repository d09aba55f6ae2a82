// This file holds the rows suite (Rows): what every rows backend of
// package store must do over a store's life.

package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// RowsBackend is a rows backend under test.
type RowsBackend struct {
	// Open opens the backend's storage; every call opens the same storage
	// (the same folder, the same database schemas), which the test closes.
	Open func(t *testing.T) store.Rows
	// Durable says the rows outlive Close: the next Open finds them.
	Durable bool
}

// rowsRealm is the realm the suite writes.
const rowsRealm = "realm-7-70-DEV"

// rowsV1 is the data template the suite starts with; rowsV2 adds a
// column, a table and a transform.
const rowsV1 = `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: temp, name: Temperature, dataType: numeric}
`

const rowsV2 = rowsV1 + `        - {id: note, name: Note, dataType: string}
    - tablename: events
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: kind, name: Kind, dataType: string}
  transforms:
    - tablename: readings_hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, count(*) AS n FROM readings GROUP BY 1
      columns:
        - {id: tsp, name: Hour, dataType: timestamp}
        - {id: n, name: Count, dataType: bigint}
`

// Rows runs the rows suite on a backend: a store's life, not only its
// first hour.
func Rows(t *testing.T, b RowsBackend) {
	t.Run("lifecycle", func(t *testing.T) { rowsLifecycle(t, b) })
	t.Run("template change", func(t *testing.T) { rowsTemplateChange(t, b) })
	t.Run("failing transform", func(t *testing.T) { rowsFailingTransform(t, b) })
}

// schemaOf parses a data template into the suite realm's schema.
func schemaOf(t *testing.T, realm, src string) *store.Schema {
	t.Helper()
	tpl, _, err := template.ParseData([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return store.NewSchema(realm, tpl)
}

// reading is a row of readings under rowsV1 (tsp, machine, temp,
// device_key, authid).
func reading(tsp int64, machine string, temp float64) *store.NewRow {
	return &store.NewRow{Vals: []any{tsp, machine, temp, int64(42), "serial"}}
}

func readAll(t *testing.T, tb store.Tables, table string) [][]any {
	t.Helper()
	rows, err := tb.Read(context.Background(), table, &store.ReadQuery{Limit: 100})
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return rows
}

// rowsLifecycle: open, write, close, open again: a durable backend gives
// the same rows and answers (count, span, latest), one that is not
// starts empty.
func rowsLifecycle(t *testing.T, b RowsBackend) {
	ctx := context.Background()
	st := b.Open(t)
	tb, err := st.Open(ctx, schemaOf(t, rowsRealm, rowsV1))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(ctx, "readings", []*store.NewRow{reading(1000, "m1", 20), reading(2000, "m2", 21), reading(3000, "m1", 22)}); err != nil {
		t.Fatal(err)
	}
	if err := tb.Append(ctx, "readings", []*store.NewRow{reading(3000, "m1", 23)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a second row of entity m1 at tsp 3000: %v, want ErrConflict", err)
	}
	before := readAll(t, tb, "readings")
	latest, err := tb.Read(ctx, "readings", &store.ReadQuery{Latest: true, Limit: 10})
	if err != nil || len(latest) != 2 {
		t.Fatalf("latest rows: %v, %v; want 2", latest, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = b.Open(t)
	defer func() { _ = st.Close() }()
	tb, err = st.Open(ctx, schemaOf(t, rowsRealm, rowsV1))
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	after := readAll(t, tb, "readings")
	if !b.Durable {
		if len(after) != 0 {
			t.Errorf("a store that keeps nothing holds %d rows after Close", len(after))
		}
		return
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("rows after opening again (-before +after):\n%s", diff)
	}
	if n, err := tb.Count(ctx, "readings"); err != nil || n != 3 {
		t.Errorf("count after opening again: %d, %v; want 3", n, err)
	}
	if old, nw, ok, err := tb.Span(ctx, "readings"); err != nil || !ok || old != 1000 || nw != 3000 {
		t.Errorf("span after opening again: %d…%d %v %v", old, nw, ok, err)
	}
	again, err := tb.Read(ctx, "readings", &store.ReadQuery{Latest: true, Limit: 10})
	if err != nil || !cmp.Equal(latest, again) {
		t.Errorf("latest rows after opening again: %v, %v; want %v", again, err, latest)
	}
	if err := tb.Append(ctx, "readings", []*store.NewRow{reading(3000, "m1", 23)}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("the entity rule after opening again: %v, want ErrConflict", err)
	}
	if n, err := st.CountRows(ctx); err != nil || n < 3 {
		t.Errorf("CountRows after opening again: %d, %v", n, err)
	}
}

// rowsTemplateChange: a realm opened again with a column, a table and a
// transform added keeps its rows (NULL in the new column) and takes
// rows in the new table.
func rowsTemplateChange(t *testing.T, b RowsBackend) {
	ctx := context.Background()
	st := b.Open(t)
	defer func() { _ = st.Close() }()
	v1, err := st.Open(ctx, schemaOf(t, "realm-7-71-DEV", rowsV1))
	if err != nil {
		t.Fatal(err)
	}
	if err := v1.Append(ctx, "readings", []*store.NewRow{reading(1000, "m1", 20)}); err != nil {
		t.Fatal(err)
	}
	v2, err := st.Open(ctx, schemaOf(t, "realm-7-71-DEV", rowsV2))
	if err != nil {
		t.Fatalf("open with a column, a table and a transform added: %v", err)
	}
	want := [][]any{{int64(1000), "m1", 20.0, nil, int64(42), "serial"}}
	if diff := cmp.Diff(want, readAll(t, v2, "readings")); diff != "" {
		t.Errorf("rows under the changed template (-want +got):\n%s", diff)
	}
	if err := v2.Append(ctx, "events", []*store.NewRow{{Vals: []any{int64(5), "boot", int64(42), "serial"}}}); err != nil {
		t.Fatalf("append to the added table: %v", err)
	}
	if got := readAll(t, v2, "events"); len(got) != 1 || got[0][1] != "boot" {
		t.Errorf("the added table holds %v", got)
	}
	if err := st.DropRealm(ctx, "realm-7-71-DEV"); err != nil {
		t.Fatal(err)
	}
}

// rowsFailingTransform: a realm opened again with a transform whose SQL
// fails. A backend that runs transforms' SQL refuses it (Check and Open),
// naming the transform and where the SQL fails, and keeps the realm as it
// was; one that does not run SQL says so (ErrNotSupported) for computing
// transforms, retention, direct SQL and the seed ledger, takes the
// transform (it never runs its SQL) and is given its rows.
func rowsFailingTransform(t *testing.T, b RowsBackend) {
	ctx := context.Background()
	st := b.Open(t)
	defer func() { _ = st.Close() }()
	good, err := st.Open(ctx, schemaOf(t, "realm-7-72-DEV", rowsV2))
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Append(ctx, "readings", []*store.NewRow{{Vals: []any{int64(1000), "m1", 20.0, "n", int64(42), "serial"}}}); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(rowsV2, "FROM readings", "FROM no_such_table", 1)
	if err := st.Check(ctx, schemaOf(t, "realm-7-72-DEV", bad), false); err != nil {
		// A backend that runs the SQL refuses it, naming the transform,
		// and Open refuses it too.
		if !strings.Contains(err.Error(), "readings_hourly") || !strings.Contains(err.Error(), "no_such_table") ||
			!strings.Contains(err.Error(), "position") {
			t.Errorf("the refusal of a failing transform does not name it, the cause and the position: %v", err)
		}
		if _, err := st.Open(ctx, schemaOf(t, "realm-7-72-DEV", bad)); err == nil {
			t.Error("Open took the transform Check refused")
		}
		again, err := st.Open(ctx, schemaOf(t, "realm-7-72-DEV", rowsV2))
		if err != nil {
			t.Fatalf("the realm does not open as it was after the refusal: %v", err)
		}
		if rows := readAll(t, again, "readings"); len(rows) != 1 {
			t.Errorf("the refusal changed the rows: %v", rows)
		}
		_ = st.DropRealm(ctx, "realm-7-72-DEV")
		return
	}
	tb, err := st.Open(ctx, schemaOf(t, "realm-7-72-DEV", bad))
	if err != nil {
		t.Fatalf("a backend that does not run SQL refused a transform: %v", err)
	}
	for what, err := range map[string]error{
		"RefreshTransform": tb.RefreshTransform(ctx, "readings_hourly"),
		"Maintain":         tb.Maintain(ctx, 0),
		"MarkSeeded":       st.MarkSeeded(ctx, "realm-7-72-DEV", "readings", 42),
	} {
		if !errors.Is(err, store.ErrNotSupported) {
			t.Errorf("%s: %v, want ErrNotSupported", what, err)
		}
	}
	if _, err := tb.ReaderURL(ctx); !errors.Is(err, store.ErrNotSupported) {
		t.Errorf("ReaderURL: %v, want ErrNotSupported", err)
	}
	rows := []map[string]any{{"tsp": int64(3600000), "n": int64(2)}}
	if err := tb.SetTransformRows(ctx, "readings_hourly", rows); err != nil {
		t.Fatal(err)
	}
	got, err := tb.ReadTransform(ctx, "readings_hourly", &store.TransformQuery{Limit: 10})
	if err != nil || !cmp.Equal(rows, got) {
		t.Errorf("the transform's rows: %v, %v; want %v", got, err, rows)
	}
	if err := st.DropRealm(ctx, "realm-7-72-DEV"); err != nil {
		t.Fatal(err)
	}
}
