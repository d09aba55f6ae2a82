package platformtest

import (
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// fleetStore is a store of the data backends that the behaviour tests of
// the data service run against: the conformance suite. Every test of the
// tables, series, transforms, secrets and cross-app reads runs once per
// store (eachStore); what a test cannot do on a store is a bug in the test
// or in the store, never a skip.
type fleetStore struct {
	name string
	// options choose the store for the platform of one test (a fresh,
	// empty one), with whatever it needs (a folder, a database).
	options func(tb testing.TB) []Option
	// transform makes a transform of realm hold rows, in the view's
	// order, and publishes them on transformed.<transform> as a schedule
	// tick does. The test has stored the source rows the transform's SQL
	// computes rows from: a store that runs the SQL (PostgreSQL) computes
	// them (refreshing a materialized view) and publishes; the memory
	// store is given rows.
	transform func(t *testing.T, p *Platform, realm, transform string, rows []map[string]any)
}

// fleetStores are the stores of the conformance suite. A new store is one
// entry.
var fleetStores = []fleetStore{
	{
		name: "memory",
		options: func(testing.TB) []Option {
			return []Option{withFleetStore(func() (fleetdb.Store, error) { return memory.New(), nil })}
		},
		transform: givenTransformRows,
	},
	{
		name: "datadir",
		options: func(tb testing.TB) []Option {
			return []Option{WithDataDir(filepath.Join(tb.TempDir(), "data"))}
		},
		transform: givenTransformRows,
	},
}

// givenTransformRows gives a store that cannot run a transform's SQL the
// rows it computes.
func givenTransformRows(t *testing.T, p *Platform, realm, transform string, rows []map[string]any) {
	t.Helper()
	if err := p.SetTransformRows(realm, transform, rows); err != nil {
		t.Fatal(err)
	}
}

// postgresEnv names the variable that holds the connection string of the
// database the PostgreSQL tests use (storetest.PostgresURL reads it).
const postgresEnv = storetest.PostgresEnv

// postgresFleetStore is the PostgreSQL entry: the transform's SQL
// computes its rows from the source rows the test stored (refresh and
// publish it; the test reads what it computed).
var postgresFleetStore = fleetStore{
	name: "postgres",
	options: func(tb testing.TB) []Option {
		return []Option{WithPostgres(storetest.PostgresURL(tb), PostgresScratch())}
	},
	transform: func(t *testing.T, p *Platform, realm, transform string, _ []map[string]any) {
		t.Helper()
		if err := p.RefreshTransform(realm, transform); err != nil {
			t.Fatal(err)
		}
	},
}

// fleetStoresOf returns the stores of the conformance suite, one per
// backend of storetest.Kinds.
func fleetStoresOf(tb testing.TB) []fleetStore {
	var out []fleetStore
	for _, k := range storetest.Kinds(tb) {
		switch k {
		case storetest.Memory:
			out = append(out, fleetStores[0])
		case storetest.Folder:
			out = append(out, fleetStores[1])
		case storetest.Postgres:
			out = append(out, postgresFleetStore)
		}
	}
	return out
}

// eachStore runs body as a subtest per store of fleetStores.
func eachStore(t *testing.T, body func(t *testing.T, s fleetStore)) {
	t.Helper()
	for _, s := range fleetStoresOf(t) {
		t.Run("store="+s.name, func(t *testing.T) { body(t, s) })
	}
}
