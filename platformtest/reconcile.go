// This file holds Reconcile: bringing the world a platform keeps (in its
// data folder, WithDataDir) in line with a seed, as flockd does with its
// configuration at every start. The registry pass is in
// reconcile_registry.go; this file runs it, then tells the services which
// realms went (realm.Forgetter) and which data templates changed
// (realm.Migrator), and seeds the rows of new installations. It serves no
// URI.

package platformtest

import (
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// ReconcileOption adjusts one Reconcile call.
type ReconcileOption func(*reconcileSettings)

type reconcileSettings struct {
	allowDrop bool
}

// AllowDrop lets Reconcile change an app's data template in a way that
// drops kept data (a table, a column or a file namespace removed, a
// column retyped); without it such a change is refused and nothing
// changes. flockd's -allow-drop.
func AllowDrop() ReconcileOption { return func(r *reconcileSettings) { r.allowDrop = true } }

// Reconcile brings the platform's world in line with a seed (flockd's
// configuration): what the seed lists and the platform lacks is added;
// what the platform holds from an earlier seed (Reconcile marks what it
// provisions) but the seed no longer lists is removed with its data, each
// with a log line; what was made in Go or over the management API stays.
// Entities are matched by name (devices and groups within their project,
// installations by project, device, app and stage); one whose key the
// seed sets to another value is removed and made anew.
//
// What was generated (serial numbers, credential keys, tokens, keys) is
// kept; what the seed sets wins (a serial_number, a token, roles, group
// members). An app whose templates changed gets a new READY release
// holding them, to which its installations on the previous one move; a
// data template change that drops data (a table, column or file
// namespace removed, a column retyped) is refused unless AllowDrop is
// given. A data template the data backends' store would refuse (with
// WithPostgres, a transform whose SQL fails) is refused naming the app,
// the transform and the cause before anything changes. Rows of a seed's
// installations are inserted when the installation is new or the table
// holds no row yet (nothing of it is kept; with WithPostgres, once per
// store). The registry part is all or nothing: on an error nothing of it
// has changed.
//
// On a platform without a data folder that holds nothing yet, Reconcile
// provisions like Apply.
func (p *Platform) Reconcile(s *Seed, opts ...ReconcileOption) (*SeedResult, error) {
	var rs reconcileSettings
	for _, o := range opts {
		o(&rs)
	}
	var rc *reconciler
	err := p.reg.Transact(func(st *registry.State) error {
		rc = &reconciler{p: p, st: st, seed: s, allowDrop: rs.allowDrop}
		if err := rc.run(); err != nil {
			return err
		}
		return rc.checkDataBackends() // reconcile_check.go
	})
	if err != nil {
		return nil, fmt.Errorf("reconcile: %w", err)
	}
	for _, log := range rc.logs {
		log()
	}
	p.reconcile()
	err = p.keepersFollow(rc)
	p.restartMigrated(rc)
	if err != nil {
		return rc.res, err
	}
	for _, in := range rc.res.Installations {
		if err := p.openDataBackend(in.Realm(), in.App().Name()); err != nil { // postgres.go
			return rc.res, err
		}
	}
	empty := p.emptySeedTables(s, rc.res)
	if err := p.applySeedData(s, rc.res, func(i int, table string) bool { return rc.fresh[i] || empty[i][table] }); err != nil {
		return rc.res, err
	}
	return rc.res, p.applySeedFiles(s)
}

// emptySeedTables tells, for each seed installation, which of the tables
// it seeds rows into hold no row yet (before any is inserted): their rows
// are inserted again, as nothing of them is kept.
func (p *Platform) emptySeedTables(s *Seed, res *SeedResult) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	for i, si := range s.Installations {
		if i >= len(res.Installations) {
			break
		}
		out[i] = map[string]bool{}
		for table := range si.Rows {
			ext, err := p.fleet.Extent(res.Installations[i].Realm(), table)
			out[i][table] = err != nil || ext.Rows == 0 // an error: the insert reports it
		}
	}
	return out
}

// keepersFollow tells the services that keep data per realm which realms
// went and which data templates changed.
func (p *Platform) keepersFollow(rc *reconciler) error {
	var errs []error
	for _, name := range rc.forgotten {
		for _, svc := range p.keepers() {
			if f, ok := svc.(realm.Forgetter); ok {
				if err := f.Forget(name); err != nil {
					errs = append(errs, fmt.Errorf("reconcile: forget the data of realm %s: %w", name, err))
				}
			}
		}
	}
	for _, m := range rc.migrations {
		for _, svc := range p.keepers() {
			if mg, ok := svc.(realm.Migrator); ok {
				if err := mg.Migrate(m.realm, m.change); err != nil {
					errs = append(errs, fmt.Errorf("reconcile: migrate the data of realm %s: %w", m.realm, err))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// restartMigrated takes the realms whose data template changed down and
// up again, so that the services serve the new tables and namespaces.
func (p *Platform) restartMigrated(rc *reconciler) {
	var names []string
	for _, m := range rc.migrations {
		names = append(names, m.realm)
	}
	if len(names) > 0 {
		p.rt.RestartRealms(names)
	}
}

// keepers are the services that keep data per realm: the data backend and
// the file service. They implement realm.Forgetter and, when their data
// follows the data template, realm.Migrator.
func (p *Platform) keepers() []any { return []any{p.fleet, p.files} }
