// This file holds the refusal of every write of a realm that a test or a
// person switches on (platformtest.RefuseWrites, the console, flockd's
// fault API): the data backend answers as the platform's does when its
// storage is full or the account's allowance is used up, and reports each
// refusal on databackend.errors.<t> as it reports every refused write
// (dataerrors.go). It serves no URI.

package fleetdb

import (
	"maps"
	"slices"
)

// RefuseWrites makes the data backend of realm refuse every append, bulk
// append, publication and bulk publication to its tables (error-logs
// included) with the error uri and the message reason, before it reads
// the rows: wire.ErrStorageFull (the disk is nearly full) or
// wire.ErrStorageOverusage (the allowance is used up). A refused append
// is answered with uri, a refused publication dropped; both are reported
// on databackend.errors.<t>. uri "" accepts writes again. InsertRows and
// AppendRows are never refused.
func (db *DB) RefuseWrites(realm, uri, reason string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if uri == "" {
		delete(db.refusals, realm)
		return
	}
	if db.refusals == nil {
		db.refusals = map[string]*fleetError{}
	}
	db.refusals[realm] = dataRefusal(uri, "%s", reason)
}

// writeRefusal returns the refusal of realm's writes (a copy); nil while
// they are accepted.
func (db *DB) writeRefusal(realm string) *fleetError {
	db.mu.Lock()
	defer db.mu.Unlock()
	r := db.refusals[realm]
	if r == nil {
		return nil
	}
	e := *r
	return &e
}

// RefusingWrites returns the realms whose writes are refused, sorted.
func (db *DB) RefusingWrites() []string {
	db.mu.Lock()
	defer db.mu.Unlock()
	return slices.Sorted(maps.Keys(db.refusals))
}
