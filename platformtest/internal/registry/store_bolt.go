// This file holds the registry's store in a data folder: the bbolt file
// registry.db with one bucket per kind of entity, ID → JSON document,
// each value with the folder's checksum (datadir.Put). Every Save is one
// transaction, committed and synced before it returns.

package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// StoreFile is the name of the registry's file in a data folder, without
// its ".db".
const StoreFile = "registry"

// fillPercent is how full the registry fills a page before it splits it:
// the changes come sorted by ID (saveLocked), so a large change (a
// fleet provisioned) fills its pages in order and leaves them nearly
// full rather than half, for half the pages to write and map.
const fillPercent = 0.9

// boltStore is the Store of a data folder.
type boltStore struct {
	dir *datadir.Dir
	db  *datadir.DB // nil: a read-only folder without the file (nothing kept)
}

// OpenStore returns the registry's store in the data folder d. In a
// read-only folder without registry.db it keeps nothing.
func OpenStore(d *datadir.Dir) (Store, error) {
	db, err := d.DB(StoreFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &boltStore{dir: d}, nil
	}
	if err != nil {
		return nil, err
	}
	return &boltStore{dir: d, db: db}, nil
}

// Load reads every entity. A bucket of a kind this program does not know
// is an error: a newer program wrote it.
func (b *boltStore) Load() ([]Entity, error) {
	if b.db == nil {
		return nil, nil
	}
	var out []Entity
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			kind := Kind(name)
			if !slices.Contains(Kinds, kind) {
				return fmt.Errorf("bucket %q holds entities of a kind this flockd does not know", name)
			}
			return bk.ForEach(func(k, raw []byte) error {
				doc, err := datadir.Value(k, raw)
				if err != nil {
					return fmt.Errorf("bucket %s: %w", kind, err)
				}
				out = append(out, Entity{Kind: kind, ID: string(k), Doc: slices.Clone(doc)})
				return nil
			})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", b.dir.Path(), b.db.Name(), err)
	}
	return out, nil
}

// Save writes the changes in one transaction shared with no one else's
// (the registry saves under its lock), synced before it returns.
func (b *boltStore) Save(ctx context.Context, changes []Entity) error {
	if b.db == nil {
		return fmt.Errorf("%w: %s", datadir.ErrReadOnly, b.dir.Path())
	}
	err := b.db.Update(ctx, func(tx *bolt.Tx) error {
		for _, e := range changes {
			bk, err := datadir.CreateBucket(tx, []byte(e.Kind))
			if err != nil {
				return err
			}
			bk.FillPercent = fillPercent
			if e.Doc == nil {
				err = bk.Delete([]byte(e.ID))
			} else {
				err = datadir.Put(bk, []byte(e.ID), e.Doc)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", e.Kind, e.ID, err)
			}
		}
		return nil
	})
	b.dir.NoteWrite(err) // a full disk is logged once per episode
	return err
}
