package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
)

// faultyStore is a store whose Tables fail every call with err while err
// is set, and otherwise pass to the memory store: the failures a disk or a
// database can have.
type faultyStore struct {
	Store
	tables *faultyTables
}

func (s *faultyStore) Open(ctx context.Context, sc *Schema) (Tables, error) {
	t, err := s.Store.Open(ctx, sc)
	if err != nil {
		return nil, err
	}
	s.tables = &faultyTables{Tables: t}
	return s.tables, nil
}

type faultyTables struct {
	Tables
	err error
}

func (f *faultyTables) Append(ctx context.Context, table string, rows []*NewRow) error {
	if f.err != nil {
		return f.err
	}
	return f.Tables.Append(ctx, table, rows)
}

func (f *faultyTables) Read(ctx context.Context, table string, q *ReadQuery) ([][]any, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.Tables.Read(ctx, table, q)
}

func (f *faultyTables) Series(ctx context.Context, table string, q *SeriesQuery) ([]SeriesGroup, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.Tables.Series(ctx, table, q)
}

func (f *faultyTables) Scan(ctx context.Context, table string) iter.Seq2[[]any, error] {
	if f.err != nil {
		return func(yield func([]any, error) bool) { yield(nil, f.err) }
	}
	return f.Tables.Scan(ctx, table)
}

func (f *faultyTables) Span(ctx context.Context, table string) (int64, int64, bool, error) {
	if f.err != nil {
		return 0, 0, false, f.err
	}
	return f.Tables.Span(ctx, table)
}

func (f *faultyTables) ReadTransform(ctx context.Context, name string, q *TransformQuery) ([]map[string]any, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.Tables.ReadTransform(ctx, name, q)
}

func (f *faultyTables) SetTransformRows(ctx context.Context, name string, rows []map[string]any) error {
	if f.err != nil {
		return f.err
	}
	return f.Tables.SetTransformRows(ctx, name, rows)
}

// sqlStateError is a driver's error with a SQLSTATE, as pgconn.PgError.
type sqlStateError struct{ code string }

func (e sqlStateError) Error() string    { return "driver error " + e.code }
func (e sqlStateError) SQLState() string { return e.code }

// TestStoreFailures: a store's failure reaches the answer as the
// platform's error, never as a success, and nothing is stored: a full
// storage is storage_full, an error with a SQLSTATE that Postgres error,
// a cancelled call wamp.error.canceled, anything else io_error (58030).
// Reads, series, transforms and the hooks fail the same way.
func TestStoreFailures(t *testing.T) {
	fs := &faultyStore{Store: memory.New()}
	db, b := newUnitDB(t, unitStore{"faulty", func(testing.TB) Store { return fs }})
	h := &realm.Host{Realm: b.realm, Clock: fixedClock(t0), Log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	appendRow := func() (uri string, args []any) {
		inv := &wamp.Invocation{Arguments: wamp.List{map[string]any{"tsp": ms(0), "n": 1}}, Details: wamp.Dict{}}
		r := b.serveAppend(ctx, h, b.table("sensordata"), inv, false)
		return string(r.Err), wirevalue.CloneList(r.Args)
	}
	pgObject := func(code string) []any {
		return []any{map[string]any{"name": "error", "severity": "ERROR", "code": code}}
	}
	cases := []struct {
		name string
		err  error
		uri  string
		args []any // nil: not compared
	}{
		{"storage full", fmt.Errorf("disk: %w", store.ErrFull), wire.ErrStorageFull, nil},
		{"SQLSTATE", sqlStateError{"53100"}, wire.ErrRuntimeError, pgObject("53100")},
		{"store's SQLError", &store.SQLError{Code: "22P02", Msg: "bad"}, wire.ErrRuntimeError, pgObject("22P02")},
		{"lost connection", errors.New("connection reset"), wire.ErrRuntimeError, pgObject(pgIOError)},
		{"cancelled", context.Canceled, wire.ErrCanceled, nil},
	}
	for _, tc := range cases {
		fs.tables.err = tc.err
		uri, args := appendRow()
		if uri != tc.uri || (tc.args != nil && !cmp.Equal(tc.args, args)) {
			t.Errorf("%s: append answered %q %v, want %s %v", tc.name, uri, args, tc.uri, tc.args)
		}
		for _, proc := range []string{"history.transformed.sensordata", "history.transformed.series.sensordata", "history.transformed.sensordata_hourly"} {
			query := q("limit", 1, "metrics", list(q("ref", "n", "method", "SUM")), "timeRange", list(nil, ms(time.Hour)))
			if r := serve(b, proc, wamp.List{query}); string(r.Err) != tc.uri {
				t.Errorf("%s: %s answered %q %v, want %s", tc.name, proc, r.Err, r.Args, tc.uri)
			}
		}
		if err := db.InsertRows(ctx, unitRealm.Name, "sensordata", unitWriter, map[string]any{"tsp": ms(0)}); err == nil {
			t.Errorf("%s: InsertRows succeeded", tc.name)
		}
		if _, err := db.TableRows(ctx, unitRealm.Name, "sensordata"); !errors.Is(err, tc.err) {
			t.Errorf("%s: TableRows: %v", tc.name, err)
		}
		if err := db.SetTransformRows(ctx, unitRealm.Name, "sensordata_hourly", nil); !errors.Is(err, tc.err) {
			t.Errorf("%s: SetTransformRows: %v", tc.name, err)
		}
	}
	fs.tables.err = nil
	if rows, err := db.TableRows(ctx, unitRealm.Name, "sensordata"); err != nil || len(rows) != 0 {
		t.Errorf("after the failures: %d rows, %v; want none stored", len(rows), err)
	}
	if uri, args := appendRow(); uri != "" {
		t.Errorf("append once the store works: %q %v", uri, args)
	}
}
