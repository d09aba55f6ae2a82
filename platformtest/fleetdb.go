// This file is the facade of the data backend (package internal/fleetdb,
// attached to every realm as a service): the choice of its store (where
// the rows are kept: backends.go), its test
// hooks as methods of Platform (direct inserts, the stored rows, the chunk
// budget of a read, the rows of a transform), the secret placeholder, and
// the failures of WithStrictColumns. The storage refusal switch,
// RefuseWrites (faults.go), is the data backend's own. The hooks serve no URI; bad
// input fails the test as provisioning mistakes do.

package platformtest

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
)

// closeFleet closes the data backends' store, once.
func (p *Platform) closeFleet() {
	p.fleetDone.Do(func() {
		if err := p.fleet.Close(); err != nil {
			p.log.Warn("data store not closed cleanly", "err", err)
		}
	})
}

// SecretPlaceholder is what every read and feed shows instead of a
// non-null value of a secret column (the seed's SECRET_PLACEHOLDER). Written
// to a secret column of an entity table it means "keep the stored value".
const SecretPlaceholder = "__secret__"

// InsertRows stores rows in a table of in's realm as if in's device had
// appended them: device_key and authid are the device's key and serial
// unless a row sets them. A row maps column ids to values (time.Time,
// ISO 8601 text or epoch milliseconds for timestamps); the write rules
// apply (storage typing, entity merge and conflicts, secret placeholder
// and ciphertext refusals), the storage refusal does not, and nothing is
// published on the feeds. The rows are all stored or, on the first
// refused one, none; a key that is not a column of the table is an error.
// Inserting in tsp order is cheapest: a million rows take seconds.
func (p *Platform) InsertRows(in *Installation, table string, rows ...map[string]any) error {
	if in == nil {
		return fmt.Errorf("insert into %q: no installation", table)
	}
	w := fleetdb.Writer{DeviceKey: int64(in.Device().Key()), Serial: in.Device().Serial(), App: in.App().Name()}
	return p.fleet.InsertRows(context.Background(), in.Realm(), table, w, rows...)
}

// TableRows returns the rows stored in a table of realm, oldest first (by
// tsp, then insertion): every column with device_key and authid (and id
// for error-logs), typed as reads type them (timestamps as ISO 8601
// texts) but with secret columns as stored, as direct SQL access
// shows them: ciphertext ifsec:1:<base64> (NULL stays nil).
// DecryptedTableRows shows their plaintext. An unknown realm or table
// fails the test (a platform made by Start panics).
func (p *Platform) TableRows(realm, table string) []map[string]any {
	rows, err := p.fleet.TableRows(context.Background(), realm, table)
	if err != nil {
		p.failf("%v", err)
		return nil
	}
	return rows
}

// SetChunkBudget sets the chunk budget of reads of a table or transform of
// realm: results whose estimated JSON size is over it come in chunks (or
// fail with result_too_large without receive_progress). The default is 8
// MiB; bytes ≤ 0 restores it. An unknown realm or table fails the test (a
// platform made by Start panics).
func (p *Platform) SetChunkBudget(realm, table string, bytes int) {
	if err := p.fleet.SetChunkBudget(context.Background(), realm, table, bytes); err != nil {
		p.failf("%v", err)
	}
}

// SetTransformRows sets the rows of a transform of realm, in the order
// its SQL would return them (the memory store cannot run the SQL). Reads
// apply the transform rules to them; the whole view, at most 3000 rows in
// reverse order, is published on transformed.<transform> as a schedule
// tick would. Values of declared columns are typed like table columns;
// other keys are kept as given. A store that computes transforms from
// their SQL refuses with an error.
func (p *Platform) SetTransformRows(realm, transform string, rows []map[string]any) error {
	return p.fleet.SetTransformRows(context.Background(), realm, transform, rows)
}

func (p *Platform) failf(format string, a ...any) {
	if p.tb != nil {
		p.tb.Helper()
	}
	p.fail(fmt.Errorf(format, a...))
}

// columnDropped fails the test for what a write lost when WithStrictColumns
// asked for it (the data backend has logged it already).
func (p *Platform) columnDropped(d fleetdb.Drop) {
	if !p.set.columns || !d.First {
		return
	}
	var msg string
	if d.Key == "" {
		msg = fmt.Sprintf("WithStrictColumns: %s published a row without tsp to table %q of %s; the platform dropped the row",
			d.Call, d.Table, d.Realm)
	} else {
		msg = fmt.Sprintf("WithStrictColumns: %s wrote key %q that no column of table %q of %s reads; the platform stores the row without it",
			d.Call, d.Key, d.Table, d.Realm)
	}
	if d.AuthID != "" {
		msg += " (writer " + d.AuthID + ")"
	}
	if p.tb != nil {
		p.tb.Errorf("platformtest: %s", msg)
		return
	}
	p.log.Error("platformtest: " + msg)
}
