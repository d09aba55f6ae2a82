// This file holds the refresh of materialized transforms outside their
// schedules: after the rows a configuration seeds went in (platformtest's
// Reconcile) and on demand (flockd's REST route, the console's button),
// and what the console shows of each transform: its kind and when the
// PostgreSQL store last computed it (at Open, which makes the views anew
// with their data after every migration, and at each refresh). It serves
// no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

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

// materialized returns the names of the realm's materialized transforms.
func (t *pgTables) materialized() []string {
	var out []string
	for name, v := range t.views {
		if v.Def != nil && v.Def.Materialize {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// noteRefreshed records that the named materialized transforms were
// computed at at.
func (t *pgTables) noteRefreshed(at time.Time, names ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.refreshed == nil {
		t.refreshed = map[string]time.Time{}
	}
	for _, n := range names {
		t.refreshed[n] = at.UTC()
	}
}

// RefreshedAt returns when a materialized transform was last computed.
func (t *pgTables) RefreshedAt(transform string) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refreshed[transform]
}
