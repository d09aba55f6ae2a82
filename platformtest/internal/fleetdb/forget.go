// This file holds Forget (realm.Forgetter): the reconciliation with
// flockd's configuration removed a realm, and its data backend goes with
// every row. It serves no URI.

package fleetdb

// Forget drops the data backend of a realm and its rows; a realm without
// one is no error. A later backend of the same realm starts empty.
func (db *DB) Forget(realm string) error {
	db.mu.Lock()
	delete(db.backends, realm)
	db.mu.Unlock()
	return nil
}
