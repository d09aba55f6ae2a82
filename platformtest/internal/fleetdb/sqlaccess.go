// This file holds direct SQL access to a realm's data backend, for the
// platform's tools (flockd's connection strings, the console's SQL page):
// it needs a store that gives it (SQLAccess, the PostgreSQL store). It
// serves no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// ErrNoSQL is the error of direct SQL on a store that has none.
var ErrNoSQL = fmt.Errorf("direct SQL needs the PostgreSQL store (flockd -db, platformtest.WithPostgres): %w", store.ErrNotSupported)

// Open opens the data backend of a provisioned realm, if it is not open
// yet: its store makes or migrates the realm's storage. It fails when the
// store refuses the app's data template.
func (db *DB) Open(ctx context.Context, realm string) error {
	_, err := db.backend(ctx, realm)
	return err
}

// sqlAccess returns the direct SQL access of realm's storage.
func (db *DB) sqlAccess(ctx context.Context, realm string) (Tables, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, err
	}
	return b.store, nil
}

// noSQL answers ErrNoSQL for a store without direct SQL.
func noSQL(err error) error {
	if errors.Is(err, store.ErrNotSupported) {
		return ErrNoSQL
	}
	return err
}

// SQLURL returns the connection string of a role that may read realm's
// storage and nothing else.
func (db *DB) SQLURL(ctx context.Context, realm string) (string, error) {
	a, err := db.sqlAccess(ctx, realm)
	if err != nil {
		return "", fmt.Errorf("direct SQL of %s: %w", realm, err)
	}
	u, err := a.ReaderURL(ctx)
	if err != nil {
		return "", fmt.Errorf("direct SQL of %s: %w", realm, noSQL(err))
	}
	return u, nil
}

// QuerySQL runs one read-only statement on realm's storage, as the role of
// SQLURL, in a transaction that is always rolled back, for at most
// timeout, and returns at most maxRows rows and store.SQLMaxBytes of values
// (store/postgres); store.ErrSQLBusy when the realm's SQL sessions are all
// in use.
func (db *DB) QuerySQL(ctx context.Context, realm, query string, maxRows int, timeout time.Duration) (*SQLResult, error) {
	a, err := db.sqlAccess(ctx, realm)
	if err != nil {
		return nil, fmt.Errorf("direct SQL of %s: %w", realm, err)
	}
	res, err := a.RunSQL(ctx, query, maxRows, timeout)
	return res, noSQL(err)
}

// StorageNotes returns what realm's store accepts of its data template but
// does not apply (a knob its server lacks); none for a store that applies
// no knobs at all.
func (db *DB) StorageNotes(ctx context.Context, realm string) ([]string, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, err
	}
	return b.store.Notes(), nil
}
