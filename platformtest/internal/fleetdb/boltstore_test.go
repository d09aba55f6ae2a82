package fleetdb

import (
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// openBoltStore returns the data folder's store in a new folder, closed
// when the test ends.
func openBoltStore(tb testing.TB) Store {
	tb.Helper()
	d, err := datadir.Open(filepath.Join(tb.TempDir(), "data"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	db, err := d.DB(FleetFile)
	if err != nil {
		tb.Fatal(err)
	}
	return NewBoltStore(db)
}
