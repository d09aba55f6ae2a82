// This file opens the registry's store in a data folder: the bbolt file
// registry.db (store/folder), one bucket per kind of entity.

package registry

import (
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
)

// StoreFile is the name of the registry's file in a data folder, without
// its ".db".
const StoreFile = "registry"

// OpenStore returns the registry's store in the data folder d. In a
// read-only folder without registry.db it keeps nothing.
func OpenStore(d *datadir.Dir) (Store, error) { return folder.OpenEntities(d, StoreFile, Kinds) }
