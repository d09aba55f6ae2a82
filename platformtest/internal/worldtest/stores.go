package worldtest

import (
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// Backends are the facade's options that keep a platform's state in each
// backend of storetest.Kinds; a test package names them once, with O its
// platformtest.Option, and runs its suites with EachStore and
// EachFileStore. Memory needs no option: it is the default.
type Backends[O any] struct {
	// DataDir keeps everything in a data folder (platformtest.WithDataDir).
	DataDir func(dir string) O
	// Postgres keeps the rows in a scratch schema of the database at url
	// (platformtest.WithPostgres with PostgresScratch).
	Postgres func(url string) O
}

// Store is a store of the data backends that the behaviour tests of the
// data service run against: the conformance suite. Every test of the
// tables, series, transforms, secrets and cross-app reads runs once per
// store (EachStore); what a test cannot do on a store is a bug in the test
// or in the store, never a skip.
type Store[O any] struct {
	// Kind is the backend.
	Kind storetest.Kind
	// Options choose the store for the platform of one test or benchmark
	// (a fresh, empty one), with whatever it needs (a folder, a database).
	Options func(tb testing.TB) []O
}

// Transformer is the part of a platform that makes a transform hold rows:
// *platformtest.Platform.
type Transformer interface {
	// SetTransformRows gives a store that cannot run a transform's SQL the
	// rows it computes.
	SetTransformRows(realm, transform string, rows []map[string]any) error
	// RefreshTransform computes a transform's rows from its SQL and
	// publishes them.
	RefreshTransform(realm, transform string) error
}

// Transform makes a transform of realm hold rows, in the view's order,
// and publishes them on transformed.<transform> as a schedule tick does.
// The test has stored the source rows the transform's SQL computes rows
// from: a store that runs the SQL (PostgreSQL) computes them (refreshing a
// materialized view) and publishes, and the test reads what it computed;
// the memory and folder stores are given rows.
func (s Store[O]) Transform(t *testing.T, p Transformer, realm, transform string, rows []map[string]any) {
	t.Helper()
	var err error
	if s.Kind == storetest.Postgres {
		err = p.RefreshTransform(realm, transform)
	} else {
		err = p.SetTransformRows(realm, transform, rows)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Store returns the store of kind; a PostgreSQL store uses the database of
// storetest.PostgresURL.
func (b Backends[O]) Store(t testing.TB, kind storetest.Kind) Store[O] {
	t.Helper()
	s := Store[O]{Kind: kind, Options: func(testing.TB) []O { return nil }}
	switch kind {
	case storetest.Folder:
		s.Options = func(tb testing.TB) []O { return []O{b.DataDir(filepath.Join(tb.TempDir(), "data"))} }
	case storetest.Postgres:
		url := storetest.PostgresURL(t)
		s.Options = func(testing.TB) []O { return []O{b.Postgres(url)} }
	}
	return s
}

// EachStore runs body as a subtest "store=<kind>" per backend of
// storetest.Kinds: memory, a data folder, and PostgreSQL when
// IRONFLOCK_TEST_POSTGRES names a database.
func (b Backends[O]) EachStore(t *testing.T, body func(t *testing.T, s Store[O])) {
	t.Helper()
	for _, k := range storetest.Kinds(t) {
		s := b.Store(t, k)
		t.Run("store="+string(k), func(t *testing.T) { body(t, s) })
	}
}

// EachFileStore runs body as a subtest "files=<kind>" per backend that
// keeps the file service's objects: in memory, and in a data folder
// (records in files.db, content in the blob folder). PostgreSQL keeps rows
// only; a platform on it keeps its objects in memory.
func (b Backends[O]) EachFileStore(t *testing.T, body func(t *testing.T, s Store[O])) {
	t.Helper()
	for _, k := range storetest.Kinds(t) {
		if k == storetest.Postgres {
			continue
		}
		s := b.Store(t, k)
		t.Run("files="+string(k), func(t *testing.T) { body(t, s) })
	}
}
