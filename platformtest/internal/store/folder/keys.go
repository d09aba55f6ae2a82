// This file holds the store.Keys of a data folder: each key in the file
// of what it protects, in its bucket keys, with the folder's checksum
// (datadir.DB.Keep), synced before it is first handed out:
//
//	fleet.db  keys/secret-columns  the key of secret columns
//	files.db  keys/presign         the key that signs presigned URLs
//
// (the layout the data services used before this seam; a key of another
// name goes into keys.db).

package folder

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// keyFiles names the file of each key of the platform.
var keyFiles = map[string]string{
	store.SecretColumnsKey: "fleet",
	store.PresignKey:       ObjectsFile,
}

// Keys is the store.Keys of a data folder. It does not own the folder.
type Keys struct{ d *datadir.Dir }

// NewKeys returns the keys kept in the data folder d.
func NewKeys(d *datadir.Dir) *Keys { return &Keys{d: d} }

// Key returns the key named name kept in the folder, making and keeping
// it the first time; a kept key of another size is a damaged folder.
func (k *Keys) Key(ctx context.Context, name string) ([]byte, error) {
	file, ok := keyFiles[name]
	if !ok {
		file = "keys"
	}
	db, err := k.d.DB(file)
	if err != nil {
		return nil, err
	}
	key, err := db.Keep(ctx, "keys", name, func() ([]byte, error) { return store.NewKey(), nil })
	if err != nil {
		return nil, storeErr(err)
	}
	if len(key) != store.KeySize {
		return nil, fmt.Errorf("%w: %s: bucket keys: the key %s has %d bytes, want %d", datadir.ErrDamaged, db.Name(), name, len(key), store.KeySize)
	}
	return key, nil
}
