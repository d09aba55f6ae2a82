// This file applies the data of a seed (flockd's configuration) to the
// data backends once Apply has provisioned the platform: rows of
// installations' tables (installations[].rows) and rows of apps'
// transforms (apps[].transform_rows). It serves no URI.

package platformtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
)

// applySeedData inserts a seed's table rows and sets its transform rows.
func (p *Platform) applySeedData(s *Seed, res *SeedResult) error {
	for i, si := range s.Installations {
		if len(si.Rows) == 0 || i >= len(res.Installations) {
			continue
		}
		in := res.Installations[i]
		for _, table := range slices.Sorted(maps.Keys(si.Rows)) {
			if err := p.InsertRows(in, table, si.Rows[table]...); err != nil {
				return fmt.Errorf("installations[%d].rows: %w", i, err)
			}
		}
	}
	for i, sa := range s.Apps {
		if len(sa.TransformRows) == 0 {
			continue
		}
		tpl, err := fleetdb.ParseTemplate(sa.DataTemplate)
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
				if err := p.SetTransformRows(realm, name, sa.TransformRows[name]); err != nil {
					return fmt.Errorf("apps[%d].transform_rows: %w", i, err)
				}
			}
		}
	}
	return nil
}

// realmsOfApp returns the realms of an app's data backends, sorted.
func (p *Platform) realmsOfApp(name string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for realm, ri := range p.st.realms {
		if a := p.st.apps[ri.App]; a != nil && strings.EqualFold(a.name, name) {
			out = append(out, realm)
		}
	}
	slices.Sort(out)
	return out
}
