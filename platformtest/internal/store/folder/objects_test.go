package folder_test

import (
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// objectsBackend opens the objects of one data folder of the test's own,
// with the folder (the folder's lock is what refuses a second open).
type objectsBackend struct {
	dir  string
	last *datadir.Dir
}

// heldObjects is a folder's objects with the folder, closed together.
type heldObjects struct {
	*folder.Objects
	d *datadir.Dir
}

func (h heldObjects) Close() error {
	_ = h.Objects.Close()
	return h.d.Close()
}

func (b *objectsBackend) Open(testing.TB) (store.Objects, error) {
	d, err := datadir.Open(b.dir)
	if err != nil {
		return nil, err
	}
	objs, err := folder.OpenObjects(d, nil)
	if err != nil {
		_ = d.Close()
		return nil, err
	}
	b.last = d
	return heldObjects{objs, d}, nil
}

// SetFull makes the folder fail writes as a full disk does (datadir's
// SimulateFull).
func (b *objectsBackend) SetFull(on bool) { b.last.SimulateFull(on) }

func (b *objectsBackend) Kept() bool { return true }

// TestObjects runs the objects suite on a data folder.
func TestObjects(t *testing.T) {
	storetest.RunObjects(t, func(t *testing.T) storetest.ObjectsBackend {
		return &objectsBackend{dir: filepath.Join(t.TempDir(), "data")}
	})
}
