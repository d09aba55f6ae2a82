// This file holds what the data folder's store answers for the parts of the rows
// seam it does not do: it checks nothing before Open (Open refuses what it
// cannot migrate to), keeps no ledger of seed rows, does not compute
// transforms (it is given their rows), keeps every row (no retention) and
// gives no direct SQL. It serves no URI.

package folder

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Check accepts every schema: Open refuses what the store cannot migrate
// to, changing nothing.
func (s *boltStore) Check(context.Context, *store.Schema, bool) error { return nil }

// Seeded answers ErrNotSupported: the store keeps no ledger of seed rows.
func (s *boltStore) Seeded(context.Context, string, string, int64) (bool, error) {
	return false, fmt.Errorf("data folder's store: a ledger of seed rows: %w", store.ErrNotSupported)
}

// MarkSeeded answers ErrNotSupported, as Seeded does.
func (s *boltStore) MarkSeeded(context.Context, string, string, int64) error {
	return fmt.Errorf("data folder's store: a ledger of seed rows: %w", store.ErrNotSupported)
}

// RefreshTransform answers ErrNotSupported: the store is given the rows
// of its transforms (SetTransformRows).
func (t *boltTables) RefreshTransform(_ context.Context, transform string) error {
	return fmt.Errorf("data folder's store: computing transform %q: %w", transform, store.ErrNotSupported)
}

// RefreshedAt is zero: the store computes no transform.
func (t *boltTables) RefreshedAt(string) time.Time { return time.Time{} }

// Maintain answers ErrNotSupported: the store keeps every row.
func (t *boltTables) Maintain(context.Context, int64) error {
	return fmt.Errorf("data folder's store: retention and downsampling: %w", store.ErrNotSupported)
}

// Notes is empty: the store applies no knob of the data template.
func (t *boltTables) Notes() []string { return nil }

// ReaderURL answers ErrNotSupported: the store gives no direct SQL.
func (t *boltTables) ReaderURL(context.Context) (string, error) {
	return "", fmt.Errorf("data folder's store: direct SQL: %w", store.ErrNotSupported)
}

// RunSQL answers ErrNotSupported, as ReaderURL does.
func (t *boltTables) RunSQL(context.Context, string, int, time.Duration) (*store.SQLResult, error) {
	return nil, fmt.Errorf("data folder's store: direct SQL: %w", store.ErrNotSupported)
}

// Place is "": the console's overview names the data folder itself.
func (s *boltStore) Place() string { return "" }
