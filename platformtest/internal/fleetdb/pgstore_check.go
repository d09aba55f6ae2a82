// This file holds the check of a data template against a store before
// the platform takes it (platformtest's Reconcile: a configuration's
// changed or new app): the PostgreSQL store runs the migration Open
// would run, transforms' views included, in a transaction it rolls back,
// so that a template it would refuse (a transform whose SQL fails, a
// column it would drop without AllowDrop) is refused before anything is
// kept, and nothing changes. It serves no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// Checker is a store that can tell whether it would open a realm's
// storage with a schema, changing nothing.
type Checker interface {
	// Check returns the error Open would return for s, and keeps nothing
	// of what it tried; allowDrop lets it drop what the store's own
	// setting would refuse to (the caller drops it first, Dropper).
	Check(ctx context.Context, s *Schema, allowDrop bool) error
}

// errDryRun rolls a checked migration back.
var errDryRun = errors.New("postgres: a checked migration is rolled back")

// Check tells whether the DB's store would open the data backend of ri
// with the data template tpl (nil: no tables), changing nothing; a store
// that accepts every valid template (in memory, the data folder) says
// yes. allowDrop: the caller lets the migration drop columns
// (Migrate's Dropper drops them before the store opens the realm).
func (db *DB) Check(ctx context.Context, ri realm.Info, tpl *template.DataTemplate, allowDrop bool) error {
	c, ok := db.cfg.Store.(Checker)
	if !ok {
		return nil
	}
	_, schema := newBackend(ri, tpl, db.seal)
	if err := c.Check(ctx, schema, allowDrop); err != nil {
		return fmt.Errorf("data backend of %s: %w", ri.Name, err)
	}
	return nil
}

// Check runs the migration of Open for sc in a transaction it rolls back.
func (s *pgStore) Check(ctx context.Context, sc *Schema, allowDrop bool) error {
	t := newPGTables(s, sc)
	t.dropOK = allowDrop
	if err := t.migrate(ctx, true); err != nil {
		return fmt.Errorf("postgres schema %s: %w", t.schema, err)
	}
	return nil
}

// allowDrop tells whether the migration may drop stored values.
func (t *pgTables) allowDrop() bool { return t.s.cfg.AllowDrop || t.dropOK }
