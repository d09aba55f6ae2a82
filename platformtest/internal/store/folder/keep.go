// This file holds what the data folder's store offers the reconciliation
// with flockd's configuration (package store): DropRealm removes a realm's
// bucket, Drop removes tables and erases dropped columns from every row,
// CountRows counts the rows of every realm for the console (the key of
// secret columns is kept by Keys, keys.go). It serves no URI.

package folder

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// DropRealm removes a realm's bucket with every row.
func (s *boltStore) DropRealm(ctx context.Context, realm string) error {
	err := s.db.Update(ctx, func(tx *bolt.Tx) error {
		rs := tx.Bucket(bucketRealms)
		if rs == nil {
			return nil
		}
		return ignoreMissing(rs.DeleteBucket([]byte(realm)))
	})
	return storeFailure(s.db, err)
}

func ignoreMissing(err error) error {
	if errors.Is(err, berrors.ErrBucketNotFound) {
		return nil
	}
	return err
}

// Drop removes tables and columns from a realm. Dropped columns leave the
// catalog in one transaction (from then on no read sees them and the
// generation stops appends made with the old slots), then their values
// are erased from the rows in transactions of walkChunk rows; a kill
// meanwhile leaves the rest to the next Open.
func (s *boltStore) Drop(ctx context.Context, realm string, tables []string, columns map[string][]string) error {
	var erase []string
	err := s.db.Update(ctx, func(tx *bolt.Tx) error {
		erase = erase[:0]
		rb := realmOf(tx, realm)
		if rb == nil {
			return nil
		}
		for _, name := range tables {
			if err := ignoreMissing(rb.DeleteBucket([]byte(prefixTable + name))); err != nil {
				return err
			}
		}
		for table, ids := range columns {
			tb := rb.Bucket([]byte(prefixTable + table))
			if tb == nil || slices.Contains(tables, table) {
				continue
			}
			cat, err := readCatalog(tb)
			if err != nil || cat == nil || !cat.drop(ids) {
				return err
			}
			if err := bumpGen(tb, cat); err != nil {
				return err
			}
			erase = append(erase, table)
		}
		return nil
	})
	for _, table := range erase {
		if err == nil {
			err = s.erase(ctx, realm, table)
		}
	}
	return storeFailure(s.db, err)
}

// realmOf returns a realm's bucket in tx, nil when there is none.
func realmOf(tx *bolt.Tx, realm string) *bolt.Bucket {
	if rs := tx.Bucket(bucketRealms); rs != nil {
		return rs.Bucket([]byte(realm))
	}
	return nil
}

// bumpGen writes a changed catalog with a new generation, in the table's
// counters too.
func bumpGen(tb *bolt.Bucket, cat *catalog) error {
	m, err := readMeta(tb)
	if err != nil {
		return err
	}
	cat.Gen++
	m.gen = cat.Gen
	if err := cat.write(tb); err != nil {
		return err
	}
	return datadir.Put(tb, keyMeta, m.bytes())
}

// erase erases the values of the slots the catalog marks from a table's
// rows, in transactions of walkChunk rows.
func (s *boltStore) erase(ctx context.Context, realm, table string) error {
	var after []byte
	for {
		done := false
		err := s.db.Update(ctx, func(tx *bolt.Tx) error {
			rb := realmOf(tx, realm)
			var tb *bolt.Bucket
			if rb != nil {
				tb = rb.Bucket([]byte(prefixTable + table))
			}
			if tb == nil {
				done = true
				return nil
			}
			cat, err := readCatalog(tb)
			if err != nil {
				return err
			}
			next, err := eraseSlots(tb, cat, after, walkChunk)
			if err != nil {
				return err
			}
			if next == nil {
				done = true
				return cat.write(tb)
			}
			after = next
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

// eraseSlots sets the slots of cat.Erase to NULL in at most max rows
// (max < 0: all) after the row key after, and returns the last row key it
// rewrote; nil when it reached the end, with cat.Erase emptied.
func eraseSlots(tb *bolt.Bucket, cat *catalog, after []byte, max int) ([]byte, error) {
	rb := tb.Bucket(keyRows)
	type rewrite struct{ key, val []byte }
	var todo []rewrite
	c := rb.Cursor()
	k, raw := c.First()
	if after != nil {
		if k, raw = c.Seek(after); k != nil && bytes.Equal(k, after) {
			k, raw = c.Next()
		}
	}
	for ; k != nil && (max < 0 || len(todo) < max); k, raw = c.Next() {
		slots, err := decodeSlots(k, raw)
		if err != nil {
			return nil, err
		}
		changed := false
		for _, e := range cat.Erase {
			if e < len(slots) && slots[e] != nil {
				slots[e], changed = nil, true
			}
		}
		if changed {
			v, err := encodeSlots(slots)
			if err != nil {
				return nil, err
			}
			todo = append(todo, rewrite{slices.Clone(k), v})
		} else if max >= 0 {
			todo = append(todo, rewrite{key: slices.Clone(k)}) // counts towards the chunk
		}
	}
	for _, r := range todo {
		if r.val != nil {
			if err := datadir.Put(rb, r.key, r.val); err != nil {
				return nil, err
			}
		}
	}
	if k != nil && len(todo) > 0 {
		return todo[len(todo)-1].key, nil
	}
	cat.Erase = nil
	return nil, nil
}

// CountRows returns how many rows the store holds, from the counters of every
// table of every realm.
func (s *boltStore) CountRows(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		rs := tx.Bucket(bucketRealms)
		if rs == nil {
			return nil
		}
		return rs.ForEachBucket(func(realm []byte) error {
			rb := rs.Bucket(realm)
			return rb.ForEachBucket(func(name []byte) error {
				if !strings.HasPrefix(string(name), prefixTable) {
					return nil
				}
				m, err := readMeta(rb.Bucket(name))
				n += int64(m.count)
				return err
			})
		})
	})
	return n, storeFailure(s.db, err)
}
