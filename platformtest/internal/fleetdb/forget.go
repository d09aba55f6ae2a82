// This file holds Forget (realm.Forgetter): the reconciliation with
// flockd's configuration removed a realm, and its data backend goes with
// every row. It serves no URI.

package fleetdb

import "context"

// Forget drops the data backend of a realm and its rows, stopping its
// schedules; a realm without one is no error. A store that keeps realms
// beyond the platform (RealmDropper) drops the realm's storage, opened in
// this process or not. A later backend of the same realm starts empty.
func (db *DB) Forget(realm string) error {
	db.mu.Lock()
	b := db.backends[realm]
	delete(db.backends, realm)
	db.mu.Unlock()
	if b != nil {
		b.sched.close()
	}
	if d, ok := db.cfg.Store.(RealmDropper); ok {
		return d.DropRealm(context.Background(), realm)
	}
	return nil
}
