// This file holds the check of a data template against a store before
// the platform takes it (platformtest's Reconcile: a configuration's
// changed or new app): the PostgreSQL store runs the migration Open
// would run, transforms' views included, in a transaction it rolls back,
// so that a template it would refuse (a transform whose SQL fails, a
// column it would drop without AllowDrop) is refused before anything is
// kept, and nothing changes. It serves no URI.

package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// errDryRun rolls a checked migration back.
var errDryRun = errors.New("postgres: a checked migration is rolled back")

// Check runs the migration of Open for sc in a transaction it rolls back.
func (s *pgStore) Check(ctx context.Context, sc *store.Schema, allowDrop bool) error {
	t := newPGTables(s, sc)
	t.dropOK = allowDrop
	if err := t.migrate(ctx, true); err != nil {
		return fmt.Errorf("postgres schema %s: %w", t.schema, err)
	}
	return nil
}

// allowDrop tells whether the migration may drop stored values.
func (t *pgTables) allowDrop() bool { return t.s.cfg.AllowDrop || t.dropOK }
