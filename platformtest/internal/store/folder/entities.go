// This file holds the entities seam kept in a data folder's bbolt file
// (store.Entities).

package folder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// fillPercent is how full a page is filled before it is split: the
// changes come sorted by ID, so a large change (a fleet provisioned)
// fills its pages in order and leaves them nearly full rather than half,
// for half the pages to write and map.
const fillPercent = 0.9

// entities keeps the registry's entities in the bbolt file name.db of a
// data folder, one bucket per kind, ID → JSON document, each value with
// the folder's checksum (datadir.Put). Every Save is one transaction,
// committed and synced before it returns.
type entities struct {
	dir   *datadir.Dir
	db    *datadir.DB // nil: a read-only folder without the file (nothing kept)
	kinds []store.EntityKind
}

// OpenEntities returns the entities kept in the file name.db of the data
// folder d, of the kinds given (a bucket of another kind is refused at
// Load: a newer program wrote it). In a read-only folder without the file
// it keeps nothing.
func OpenEntities(d *datadir.Dir, name string, kinds []store.EntityKind) (store.Entities, error) {
	db, err := d.DB(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &entities{dir: d, kinds: kinds}, nil
	}
	if err != nil {
		return nil, err
	}
	return &entities{dir: d, db: db, kinds: kinds}, nil
}

// Load reads every entity.
func (b *entities) Load() ([]store.Entity, error) {
	if b.db == nil {
		return nil, nil
	}
	var out []store.Entity
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			kind := store.EntityKind(name)
			if !slices.Contains(b.kinds, kind) {
				return fmt.Errorf("bucket %q holds entities of a kind this flockd does not know", name)
			}
			return bk.ForEach(func(k, raw []byte) error {
				doc, err := datadir.Value(k, raw)
				if err != nil {
					return fmt.Errorf("bucket %s: %w", kind, err)
				}
				out = append(out, store.Entity{Kind: kind, ID: string(k), Doc: slices.Clone(doc)})
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
func (b *entities) Save(ctx context.Context, changes []store.Entity) error {
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
