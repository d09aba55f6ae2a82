// This file holds Keep: a value a service generates once and must find
// again after every restart (the key of secret columns, the key that
// signs upload URLs), stored with its checksum like every other value.

package datadir

import (
	"context"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Keep returns the value stored under key in bucket. The first time, it
// stores what gen returns, synced before Keep returns, so that later
// calls (in this process or after a restart) return the same bytes. In a
// read-only folder a value not stored yet is an error wrapping
// ErrReadOnly.
func (db *DB) Keep(ctx context.Context, bucket, key string, gen func() ([]byte, error)) ([]byte, error) {
	var kept []byte
	err := db.View(func(tx *bolt.Tx) error {
		var err error
		kept, err = storedCopy(tx, bucket, key)
		return err
	})
	if err != nil || kept != nil {
		return kept, err
	}
	fresh, err := gen()
	if err != nil {
		return nil, err
	}
	err = db.Update(ctx, func(tx *bolt.Tx) error {
		b, err := CreateBucket(tx, []byte(bucket))
		if err != nil {
			return err
		}
		if kept, err = storedCopy(tx, bucket, key); err != nil || kept != nil {
			return err // stored meanwhile
		}
		kept = fresh
		return Put(b, []byte(key), fresh)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: keep %s/%s: %w", db.name, bucket, key, err)
	}
	return kept, nil
}

// storedCopy returns a copy of the value under key in bucket, nil when there
// is none.
func storedCopy(tx *bolt.Tx, bucket, key string) ([]byte, error) {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return nil, nil
	}
	v, err := Get(b, []byte(key))
	return slices.Clone(v), err
}
