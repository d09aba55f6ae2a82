// This file holds the writes of the data folder's store (folder.go):
// Append with the entity rules, the encoding and decoding of a row by
// slots, the latest and unique buckets, and SetTransformRows. It serves
// no URI.

package folder

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Append stores rows as store.Tables.Append says, in one transaction of the
// folder's group commit: on disk when it returns. The transaction may run
// more than once (datadir.DB.Update), so it works on copies of the rows'
// values and hands the stored values back only once it is committed.
func (t *boltTables) Append(ctx context.Context, table string, rows []*store.NewRow) error {
	bt, err := t.table(ctx, table)
	if err != nil {
		return err
	}
	out := make([][]any, len(rows))
	merged := make([]bool, len(rows))
	err = t.db.Update(ctx, func(tx *bolt.Tx) error {
		tb, err := t.tableBucket(tx, bt)
		if err != nil {
			return err
		}
		return bt.append(tb, rows, out, merged)
	})
	t.db.NoteWrite(err) // a full disk is logged once per episode
	if err != nil {
		return storeFailure(t.db, err)
	}
	for i, nr := range rows {
		copy(nr.Vals, out[i])
		nr.Merged = merged[i]
	}
	return nil
}

// staged is the newest row of an entity among the rows of one append.
type staged struct {
	key  []byte
	vals []any
}

// append stores rows in the table's bucket tb, leaving the stored values
// in out and the merges in merged.
func (bt *boltTable) append(tb *bolt.Bucket, rows []*store.NewRow, out [][]any, merged []bool) error {
	s := bt.schema
	m, err := readMeta(tb)
	if err != nil {
		return err
	}
	if m.gen != bt.gen {
		return store.ErrSchemaChanged
	}
	rb, lb, ub := tb.Bucket(keyRows), tb.Bucket(keyLatest), tb.Bucket(keyUnique)
	rb.FillPercent = 1 // keys mostly grow: fill each page
	entity := len(s.EntityKey) > 0
	var newest map[string]staged
	var unique map[string]bool
	if entity {
		newest, unique = map[string]staged{}, map[string]bool{}
	}
	keys := make([][]byte, len(rows))
	for i, nr := range rows {
		vals := slices.Clone(nr.Vals)
		merged[i] = false
		tsp, _ := vals[s.TSP].(int64)
		m.seq++
		key := rowKey(tsp, m.seq)
		if entity {
			ek, complete := s.EntityKeyOf(vals)
			if complete {
				prev, err := bt.newestOf(rb, lb, ek, newest)
				if err != nil {
					return err
				}
				for j, carry := range nr.Carry {
					if carry && prev != nil && !s.Columns[j].Implicit && j != s.TSP {
						vals[j] = prev[j]
						merged[i] = true
					}
				}
				u := string(uniqueKey(ek, tsp))
				if unique[u] || ub.Get([]byte(u)) != nil {
					return fmt.Errorf("table %q: %w", s.Name, store.ErrConflict)
				}
				unique[u] = true
			}
			if cur := newest[ek]; cur.key == nil || bytes.Compare(key, cur.key) > 0 {
				newest[ek] = staged{key: key, vals: vals}
			}
		}
		if s.ID >= 0 {
			vals[s.ID] = int64(m.nextID)
			m.nextID++
		}
		keys[i], out[i] = key, vals
	}
	for _, i := range byKey(keys) {
		v, err := bt.encode(out[i])
		if err != nil {
			return err
		}
		if err := datadir.Put(rb, keys[i], v); err != nil {
			return err
		}
	}
	for ek, st := range newest {
		if err := setLatest(lb, ek, st.key); err != nil {
			return err
		}
	}
	for _, u := range slices.Sorted(maps.Keys(unique)) {
		if err := datadir.Put(ub, []byte(u), nil); err != nil {
			return err
		}
	}
	m.count += uint64(len(rows))
	return datadir.Put(tb, keyMeta, m.bytes())
}

// byKey returns the indexes of keys in the order of the keys: bbolt puts
// keys in order much faster than in any order (a transaction's new keys
// stay in one node until it commits).
func byKey(keys [][]byte) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	if !slices.IsSortedFunc(keys, bytes.Compare) {
		slices.SortFunc(idx, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
	}
	return idx
}

// newestOf returns the values of an entity's newest row: the newest of
// the stored one and the one staged earlier in the same append; nil when
// there is none.
func (bt *boltTable) newestOf(rb, lb *bolt.Bucket, ek string, newest map[string]staged) ([]any, error) {
	st := newest[ek]
	stored, err := datadir.Get(lb, entityBucketKey(ek))
	if err != nil || stored == nil {
		return st.vals, err
	}
	if st.key != nil && bytes.Compare(st.key, stored) > 0 {
		return st.vals, nil
	}
	return bt.row(rb, stored)
}

// setLatest records key as the newest row of entity ek unless a newer
// one is recorded.
func setLatest(lb *bolt.Bucket, ek string, key []byte) error {
	k := entityBucketKey(ek)
	cur, err := datadir.Get(lb, k)
	if err != nil {
		return err
	}
	if cur != nil && bytes.Compare(key, cur) <= 0 {
		return nil
	}
	return datadir.Put(lb, k, key)
}

// maxEntityKey is the longest entity key the latest bucket holds as it is;
// a longer one is replaced by its SHA-256 (bbolt's keys are bounded).
const maxEntityKey = 512

// entityBucketKey is the key of an entity in the latest bucket.
func entityBucketKey(ek string) []byte {
	if len(ek) <= maxEntityKey {
		return []byte(ek)
	}
	sum := sha256.Sum256([]byte(ek))
	return append([]byte{0xff}, sum[:]...)
}

// uniqueKey is the key of the UNIQUE (entity key, tsp) constraint: the
// tsp first (so that rows appended in time order add keys at the end of
// the bucket, which bbolt does cheaply), then the entity's key in the
// latest bucket.
func uniqueKey(ek string, tsp int64) []byte {
	k := entityBucketKey(ek)
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(k)), tspBits(tsp)), k...)
}

// encode returns the stored form of a row's values (encodeSlots): NULL
// in the tsp slot, which the key holds, and in slots no longer read.
func (bt *boltTable) encode(vals []any) ([]byte, error) {
	slots := make([]any, len(bt.cols))
	for slot, i := range bt.cols {
		if i >= 0 && i != bt.schema.TSP {
			slots[slot] = vals[i]
		}
	}
	return encodeSlots(slots)
}

// decode returns the values of the row stored under k, one per schema
// column.
func (bt *boltTable) decode(k, raw []byte) ([]any, error) {
	slots, err := decodeSlots(k, raw)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(bt.schema.Columns))
	for slot, x := range slots {
		if slot < len(bt.cols) && bt.cols[slot] >= 0 {
			vals[bt.cols[slot]] = x
		}
	}
	vals[bt.schema.TSP] = keyTsp(k)
	return vals, nil
}

// row returns the values of the row stored under key.
func (bt *boltTable) row(rb *bolt.Bucket, key []byte) ([]any, error) {
	raw := rb.Get(key)
	if raw == nil {
		return nil, fmt.Errorf("%w: the newest row %x of an entity is not stored", errCodec, key)
	}
	return bt.decode(key, raw)
}

// rebuildIndexes makes the latest and unique buckets anew from the rows,
// for a changed entity key (a table whose rows have the same key and tsp
// under the new key keeps them all).
func (bt *boltTable) rebuildIndexes(tb *bolt.Bucket) error {
	for _, name := range [][]byte{keyLatest, keyUnique} {
		if err := tb.DeleteBucket(name); err != nil {
			return err
		}
		if _, err := datadir.NewBucket(tb, name); err != nil {
			return err
		}
	}
	if len(bt.schema.EntityKey) == 0 {
		return nil
	}
	rb, lb, ub := tb.Bucket(keyRows), tb.Bucket(keyLatest), tb.Bucket(keyUnique)
	c := rb.Cursor()
	for k, raw := c.First(); k != nil; k, raw = c.Next() {
		vals, err := bt.decode(k, raw)
		if err != nil {
			return err
		}
		ek, complete := bt.schema.EntityKeyOf(vals)
		if err := datadir.Put(lb, entityBucketKey(ek), k); err != nil { // rows come oldest first
			return err
		}
		if complete {
			if err := datadir.Put(ub, uniqueKey(ek, keyTsp(k)), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetTransformRows replaces the rows of a transform, in order.
func (t *boltTables) SetTransformRows(ctx context.Context, transform string, rows []map[string]any) error {
	v, err := t.view(ctx, transform)
	if err != nil {
		return err
	}
	enc := make([][]byte, len(rows))
	for i, r := range rows {
		if enc[i], err = appendValue(nil, r); err != nil {
			return err
		}
	}
	err = t.db.Update(ctx, func(tx *bolt.Tx) error {
		rb, err := t.realmBucket(tx)
		if err != nil {
			return err
		}
		if err := rb.DeleteBucket(v.bucket); err != nil {
			return err
		}
		vb, err := datadir.NewBucket(rb, v.bucket)
		if err != nil {
			return err
		}
		vb.FillPercent = 1
		for i, e := range enc {
			if err := datadir.Put(vb, binary.BigEndian.AppendUint64(nil, uint64(i)), e); err != nil {
				return err
			}
		}
		return nil
	})
	return storeFailure(t.db, err)
}
