package fleetdb

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// The scenario tests of the backend, over the wire through a platform, are
// the fleetdb_*_test.go files of package platformtest. The tests here call
// the backend's functions directly, on a DB without router.

// unitStore is a store the behaviour tests run against.
type unitStore struct {
	name string
	// open returns an empty store; it is closed when the test ends.
	open func(tb testing.TB) Store
}

// openUnit returns the opener of a store of kind k (storetest.Kinds);
// url is the PostgreSQL test database.
func openUnit(k storetest.Kind, url string) unitStore {
	switch k {
	case storetest.Folder:
		return unitStore{"datadir", openFolder}
	case storetest.Postgres:
		return unitStore{"postgres", func(tb testing.TB) Store {
			tb.Helper()
			return openScratchPostgres(tb, url, postgres.Config{})
		}}
	case storetest.Memory:
	}
	return unitStore{"memory", func(testing.TB) Store { return memory.New() }}
}

// unitStoresOf returns the stores of the conformance suite, one per
// backend of storetest.Kinds: every behaviour test runs once against each
// (eachStore).
func unitStoresOf(tb testing.TB) []unitStore {
	var out []unitStore
	for _, k := range storetest.Kinds(tb) {
		out = append(out, openUnit(k, storetest.PostgresURL(tb)))
	}
	return out
}

// openFolder returns the data folder's store in a new folder, closed
// when the test ends.
func openFolder(tb testing.TB) Store {
	tb.Helper()
	d, err := datadir.Open(filepath.Join(tb.TempDir(), "data"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	db, err := d.DB(folder.FleetFile)
	if err != nil {
		tb.Fatal(err)
	}
	return folder.New(db)
}

// postgresEnv names the variable that holds the connection string of the
// database the PostgreSQL tests use (storetest.PostgresURL).
const postgresEnv = storetest.PostgresEnv

// openScratchPostgres opens a scratch PostgreSQL store (its schemas and
// roles dropped when it closes) at url with cfg's other settings, failing
// the test when the database cannot be reached.
func openScratchPostgres(tb testing.TB, url string, cfg postgres.Config) Store {
	tb.Helper()
	cfg.URL, cfg.Scratch = url, true
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 4
	}
	s, err := postgres.New(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("$%s: %v", postgresEnv, err)
	}
	return s
}

// eachStore runs body as a subtest per store of unitStores.
func eachStore(t *testing.T, body func(t *testing.T, s unitStore)) {
	t.Helper()
	for _, s := range unitStoresOf(t) {
		t.Run("store="+s.name, func(t *testing.T) { body(t, s) })
	}
}

// memoryStore and datadirStore are the stores that read rows in Go, for
// the tests of their costs and the benchmarks.
var memoryStore, datadirStore = openUnit(storetest.Memory, ""), openUnit(storetest.Folder, "")

// unitTemplate is the data template of the unit tests.
const unitTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: n, name: Count, dataType: bigint}
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temp, name: Temperature, dataType: numeric}
  transforms:
    - tablename: sensordata_hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, count(*) AS n FROM sensordata GROUP BY 1
      columns:
        - {id: tsp, name: Hour, dataType: timestamp}
        - {id: n, name: Count, dataType: bigint}
`

// unitRealm is the realm of the unit tests (swarm 2, app 26, DEV, as the
// harness) and unitWriter the device their inserts write as.
var (
	unitRealm  = realm.NewInfo(2, 26, "DEV")
	unitWriter = Writer{DeviceKey: 42, Serial: "06a0bf96-a539-4d6a-8471-ac7adc67616e", App: "interop"}
)

// t0 is 2026-01-01T00:00:00Z.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ms returns t0 + d in epoch milliseconds.
func ms(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

// newUnitDB returns a DB over a store s that knows unitRealm with
// unitTemplate, and the realm's backend.
func newUnitDB(tb testing.TB, s unitStore) (*DB, *backend) {
	tb.Helper()
	return newTemplateDB(tb, s, unitTemplate)
}

// newTemplateDB returns a DB over a store s that knows unitRealm with the
// data template src, and the realm's backend.
func newTemplateDB(tb testing.TB, s unitStore, src string) (*DB, *backend) {
	tb.Helper()
	tpl, _, err := template.ParseData([]byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	db := New(Config{Store: s.open(tb), Lookup: func(name string) (realm.Info, *template.DataTemplate, error) {
		if name != unitRealm.Name {
			return realm.Info{}, nil, fmt.Errorf("no realm %q", name)
		}
		return unitRealm, tpl, nil
	}})
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	b, err := db.backend(context.Background(), unitRealm.Name)
	if err != nil {
		tb.Fatal(err)
	}
	return db, b
}

// insert stores rows directly, failing the test on an error.
func insert(tb testing.TB, db *DB, table string, rows ...map[string]any) {
	tb.Helper()
	if err := db.InsertRows(context.Background(), unitRealm.Name, table, unitWriter, rows...); err != nil {
		tb.Fatal(err)
	}
}

// wireArgs normalises call arguments built in Go as the wire delivers them.
func wireArgs(a ...any) []any { return wirevalue.CloneList(a) }

// history runs a table read as history.transformed.<table> does, without
// the answer's chunking, and returns its rows newest first.
func history(tb testing.TB, b *backend, table string, query map[string]any) []map[string]any {
	tb.Helper()
	rq, err := validateHistory(wireArgs(query))
	if err != nil {
		tb.Fatal(err)
	}
	rows, err := b.history(context.Background(), b.table(table), rq)
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// fixedClock is a platform clock that stands still.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// After never fires: the clock does not move.
func (c fixedClock) After(time.Duration) <-chan time.Time { return nil }

// serve answers a call of a read procedure (history.transformed.<t>,
// .<transform> or .series.<t>) with args as the handlers Attach registers
// do, on a Host without session: an answer that needs progressive results
// fails.
func serve(b *backend, procedure string, args wamp.List) client.InvokeResult {
	h := &realm.Host{Realm: b.realm, Clock: fixedClock(t0), Log: slog.New(slog.DiscardHandler)}
	inv := &wamp.Invocation{Arguments: wirevalue.CloneList(args), Details: wamp.Dict{}}
	ctx := context.Background()
	name := strings.TrimPrefix(procedure, "history.transformed.")
	if table, ok := strings.CutPrefix(name, "series."); ok {
		return b.serveSeries(ctx, h, b.table(table), inv)
	}
	if v := b.views[name]; v != nil {
		return b.serveViewHistory(ctx, h, v, inv)
	}
	return b.serveHistory(ctx, h, b.table(name), inv)
}

func q(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func pred(col, op string, value ...any) map[string]any {
	m := map[string]any{"column": col, "operator": op}
	if len(value) == 1 {
		m["value"] = value[0]
	}
	return m
}

// list returns its arguments as a list; never nil, which would travel as
// null.
func list(v ...any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// latest is the latest marker of filterAnd.
var latest = map[string]any{"latest": true}
