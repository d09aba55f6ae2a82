// This file applies the data of a seed (flockd's configuration) to the
// data backends once Apply has provisioned the platform: rows of
// installations' tables (installations[].rows) and rows of apps'
// transforms (apps[].transform_rows). It serves no URI.

package platformtest

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// applySeedData inserts a seed's table rows (those of installation i in
// table for which want is true; all when want is nil) and sets its
// transform rows, and then refreshes the materialized transforms of the
// realms that took rows (fleetdb.RefreshMaterialized). A store that keeps a seed ledger (the PostgreSQL
// store, seed_ledger.go) decides instead of want: the rows go in once
// per store.
func (p *Platform) applySeedData(s *Seed, res *SeedResult, want func(i int, table string) bool) error {
	if ledger := p.fleet.SeedLedger(); ledger != nil {
		var err error
		if want, err = p.ledgerWants(ledger, s, res); err != nil { // seed_ledger.go
			return err
		}
	}
	seeded := map[string]bool{} // realms that took rows
	for i, si := range s.Installations {
		if len(si.Rows) == 0 || i >= len(res.Installations) {
			continue
		}
		in := res.Installations[i]
		for _, table := range slices.Sorted(maps.Keys(si.Rows)) {
			if want != nil && !want(i, table) {
				continue
			}
			if err := p.InsertRows(in, table, si.Rows[table]...); err != nil {
				return fmt.Errorf("installations[%d].rows: %w", i, err)
			}
			if err := p.markSeeded(in, table); err != nil { // seed_ledger.go
				return fmt.Errorf("installations[%d].rows: %w", i, err)
			}
			seeded[in.Realm()] = true
		}
	}
	// Materialized transforms made before the rows went in see them.
	for _, realm := range slices.Sorted(maps.Keys(seeded)) {
		if err := p.fleet.RefreshMaterialized(context.Background(), realm); err != nil {
			return fmt.Errorf("refresh the materialized transforms of %s after the seed rows: %w", realm, err)
		}
	}
	for i, sa := range s.Apps {
		if len(sa.TransformRows) == 0 {
			continue
		}
		tpl, err := registry.ParseDataTemplate(sa.DataTemplate)
		if err != nil {
			return fmt.Errorf("apps[%d]: %w", i, err)
		}
		for _, name := range slices.Sorted(maps.Keys(sa.TransformRows)) {
			if tpl == nil {
				return fmt.Errorf("apps[%d].transform_rows: app %q has no data template, so no transform %q", i, sa.Name, name)
			}
			if _, ok := tpl.Transform(name); !ok {
				return fmt.Errorf("apps[%d].transform_rows: app %q declares no transform %q", i, sa.Name, name)
			}
			for _, realm := range p.realmsOfApp(sa.Name) {
				if err := p.seedTransformRows(realm, name, sa.TransformRows[name]); err != nil { // postgres.go
					return fmt.Errorf("apps[%d].transform_rows: %w", i, err)
				}
			}
		}
	}
	return nil
}

// realmsOfApp returns the realms of an app's data backends, sorted.
func (p *Platform) realmsOfApp(name string) []string {
	var out []string
	p.reg.View(func(s *registry.State) { out = s.RealmsOfApp(name) })
	return out
}
