// Package storetest holds the conformance suites of the storage seams
// (package store) and the one list of backends they run on. Every backend
// runs every suite; the wire-level tests of the services take their
// backend list from here too.
package storetest

import (
	"os"
	"testing"
)

// Kind names a storage backend.
type Kind string

// The backends.
const (
	Memory   Kind = "memory"   // nothing kept
	Folder   Kind = "folder"   // a data folder (flockd -data)
	Postgres Kind = "postgres" // a PostgreSQL database (flockd -db)
)

// PostgresEnv names the variable that holds the connection string of the
// database the PostgreSQL tests use; .ci/run sets it (docs/testing.md).
const PostgresEnv = "IRONFLOCK_TEST_POSTGRES"

// PostgresURL returns the connection string of the test database, or ""
// when none is configured. On CI (CI set to true) a missing database fails
// the test: the PostgreSQL suites always run there.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv(PostgresEnv)
	if url == "" && os.Getenv("CI") == "true" {
		tb.Fatalf("%s is not set: on CI the PostgreSQL suites must run (.ci/run sets it)", PostgresEnv)
	}
	return url
}

// Kinds returns the backends every suite runs on: memory and folder
// always, postgres when PostgresURL names a database.
func Kinds(tb testing.TB) []Kind {
	tb.Helper()
	kinds := []Kind{Memory, Folder}
	if PostgresURL(tb) != "" {
		kinds = append(kinds, Postgres)
	}
	return kinds
}
