package folder

import (
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// ownedFolder is the store of a data folder this test opened: Close
// closes the folder too.
type ownedFolder struct {
	store.Rows
	dir *datadir.Dir
}

func (o *ownedFolder) Close() error {
	err := o.Rows.Close()
	if cerr := o.dir.Close(); err == nil {
		err = cerr
	}
	return err
}

// TestRows runs the rows suite on one data folder, opened again after
// each Close; a second open of the folder while one holds it is refused.
func TestRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	open := func(t *testing.T) store.Rows {
		t.Helper()
		d, err := datadir.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		db, err := d.DB(FleetFile)
		if err != nil {
			_ = d.Close()
			t.Fatal(err)
		}
		return &ownedFolder{Rows: New(db), dir: d}
	}
	storetest.Rows(t, storetest.RowsBackend{Open: open, Durable: true})

	first := open(t)
	defer func() { _ = first.Close() }()
	if d, err := datadir.Open(path); err == nil {
		_ = d.Close()
		t.Error("a second open of the data folder was not refused while the first holds it")
	}
}
