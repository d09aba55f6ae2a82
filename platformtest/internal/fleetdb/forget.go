// This file holds what the data backend offers the reconciliation with
// flockd's configuration (realm.Forgetter, realm.Migrator): Forget, when
// a realm leaves the configuration and its rows go with it, and Migrate,
// when its app's data template changed. The backend the DB holds for the
// realm is dropped (its schedules stopped), so that the next use opens
// the realm's storage with the template the registry now holds; a store
// that keeps realms (RealmDropper, Dropper, store.go) drops what goes.
// It serves no URI.

package fleetdb

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Forget drops the data backend of a realm and its rows, stopping its
// schedules; a realm without one is no error. A store that keeps realms
// beyond the backend (RealmDropper) drops the realm's storage, opened in
// this process or not. A later backend of the same realm starts empty.
func (db *DB) Forget(name string) error {
	db.dropBackend(name)
	if err := db.cfg.Store.DropRealm(context.Background(), name); err != nil {
		return fmt.Errorf("forget the rows of %s: %w", name, err)
	}
	return nil
}

// Migrate brings a realm's rows to its app's changed data template: the
// tables and columns the change removes, and the columns it retypes, are
// dropped with their values by a store that can (Dropper; the
// reconciliation allowed it); the next use of the realm opens its storage
// with the new template, which adds the new tables and columns (NULL in
// the stored rows). The realm's sessions see the new tables once the
// realm is brought up again.
func (db *DB) Migrate(name string, ch realm.TemplateChange) error {
	db.dropBackend(name)
	if !ch.Drops() {
		return nil
	}
	columns := map[string][]string{}
	for _, c := range append(append([]realm.ColumnChange(nil), ch.RemovedColumns...), ch.RetypedColumns...) {
		columns[c.Table] = append(columns[c.Table], c.Column)
	}
	if err := db.cfg.Store.Drop(context.Background(), name, ch.RemovedTables, columns); err != nil {
		return fmt.Errorf("migrate the rows of %s: %w", name, err)
	}
	return nil
}

// dropBackend forgets the backend the DB holds for a realm, stopping its
// schedules.
func (db *DB) dropBackend(name string) {
	db.mu.Lock()
	b := db.backends[name]
	delete(db.backends, name)
	db.mu.Unlock()
	if b != nil {
		b.sched.close()
	}
}

// Rows returns how many rows the DB's store holds over every realm (the
// console's overview), or false when the store does not count them.
func (db *DB) Rows(ctx context.Context) (int64, bool, error) {
	n, err := db.cfg.Store.CountRows(ctx)
	return n, true, err
}
