// This file holds what the platform asks the DB of the storage beyond
// rows: whether a data template would open (Check, before Reconcile
// takes it), the transforms with their kind and last refresh, the refresh
// of materialized transforms after the seed rows, the seed ledger and
// where the rows are kept. The backend answers (store.Rows); one that
// does not do a thing answers store.ErrNotSupported. It serves no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// Check tells whether the DB's store would open the data backend of ri
// with the data template tpl (nil: no tables), changing nothing; a store
// that accepts every valid template (in memory, the data folder) says
// yes. allowDrop: the caller lets the migration drop columns
// (Migrate drops them before the store opens the realm).
func (db *DB) Check(ctx context.Context, ri realm.Info, tpl *template.DataTemplate, allowDrop bool) error {
	if err := db.cfg.Store.Check(ctx, store.NewSchema(ri.Name, tpl), allowDrop); err != nil {
		return fmt.Errorf("data backend of %s: %w", ri.Name, err)
	}
	return nil
}

// TransformInfo is what the console shows of a transform.
type TransformInfo struct {
	Name string
	// Materialized: the store keeps the transform's result, computed at
	// each refresh (else on every read).
	Materialized bool
	// Schedule is the cron schedule of its refresh; "" without one.
	Schedule string
	// Refreshed is when the store last computed a materialized transform;
	// zero when it does not say (a store that does not compute
	// transforms) or for a plain view.
	Refreshed time.Time
}

// Transforms returns the transforms of realm's data backend, sorted by
// name.
func (db *DB) Transforms(ctx context.Context, realm string) ([]TransformInfo, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, err
	}
	var out []TransformInfo
	for _, name := range b.viewNames() {
		def := b.views[name].schema.Def
		ti := TransformInfo{Name: name}
		if def != nil {
			ti.Materialized, ti.Schedule = def.Materialize, def.Schedule
		}
		if ti.Materialized {
			ti.Refreshed = b.store.RefreshedAt(name)
		}
		out = append(out, ti)
	}
	return out, nil
}

// RefreshMaterialized recomputes and publishes every materialized
// transform of realm, on a store that computes transforms (a Maintainer:
// PostgreSQL); on the others it does nothing, their transforms' rows are
// set (SetTransformRows).
func (db *DB) RefreshMaterialized(ctx context.Context, realm string) error {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return err
	}
	for _, name := range b.viewNames() {
		v := b.views[name]
		if def := v.schema.Def; def == nil || !def.Materialize {
			continue
		}
		err := b.store.RefreshTransform(ctx, name)
		if errors.Is(err, store.ErrNotSupported) {
			return nil // the store is given its transforms' rows
		}
		if err != nil {
			return fmt.Errorf("transform %q: %w", name, err)
		}
		if err := b.publishView(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// SeedLedger is a store that records which seed rows it holds.
type SeedLedger interface {
	// Seeded tells whether the seed rows of device in realm's table were
	// recorded.
	Seeded(ctx context.Context, realm, table string, device int64) (bool, error)
	// MarkSeeded records them; recording them again changes nothing.
	MarkSeeded(ctx context.Context, realm, table string, device int64) error
}

// SeedLedger returns the DB's store as a SeedLedger; one that keeps none
// (a store whose rows live as long as the platform's registry) answers
// store.ErrNotSupported.
func (db *DB) SeedLedger() SeedLedger { return db.cfg.Store }

// StorePlace says where the DB's store keeps the rows when they are not
// with the platform (PostgreSQL: its server and database); "" for the
// memory and data folder stores.
func (db *DB) StorePlace() string {
	return db.cfg.Store.Place()
}
