package folder_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// TestEntities runs the entities suite on a data folder: each open opens
// the folder (which one process holds at a time) and its file.
func TestEntities(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	kinds := []store.EntityKind{"project", "user", "device"}
	storetest.TestEntities(t, storetest.EntitiesBackend{
		Open: func(*testing.T) (store.Entities, func() error, error) {
			d, err := datadir.Open(dir)
			if err != nil {
				return nil, nil, err
			}
			es, err := folder.OpenEntities(d, "entities", kinds)
			if err != nil {
				_ = d.Close()
				return nil, nil, err
			}
			return es, d.Close, nil
		},
		Exclusive: true,
	})
}

// TestEntitiesOfUnknownKindRefused: a file holding a kind this program
// does not know (a newer one wrote it) is refused at load, naming it.
func TestEntitiesOfUnknownKindRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d, err := datadir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	newer, err := folder.OpenEntities(d, "entities", []store.EntityKind{"project", "gadget"})
	if err != nil {
		t.Fatal(err)
	}
	if err := newer.Save(t.Context(), []store.Entity{{Kind: "gadget", ID: "1", Doc: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	older, err := folder.OpenEntities(d, "entities", []store.EntityKind{"project"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := older.Load(); err == nil || !contains(err.Error(), `bucket "gadget"`) {
		t.Errorf("load of an unknown kind: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
