// This file holds the data folder's store: a store.Rows (package store) that keeps
// the rows of every realm in the bbolt file fleet.db of flockd's data
// folder (platformtest.WithDataDir), on disk rather than in memory. Its
// writes are in write.go, its reads in read.go, the
// encoding of keys and values in codec.go and a table's catalog of
// slots in catalog.go. It serves no URI.
//
// Layout of fleet.db, every value with the folder's checksum
// (datadir.Put):
//
//	realms/<realm>/t/<table>/c    the catalog: which slot holds which column
//	                         m    counters: last sequence, next error-logs
//	                              id, rows held, catalog generation
//	                         r/   rows: key (tsp, sequence) → values by slot
//	                         l/   newest row per entity: entity key → row key
//	                         u/   UNIQUE (entity key, tsp): entity key ‖ tsp
//	realms/<realm>/v/<transform>/  rows as supplied: index → map
//
// Rows are ordered by their key, so a newest-first read with a time range
// seeks to the range's end and walks back, stopping at its limit; a series
// walks its range forward; the latest marker reads the l bucket, one row
// per entity, never the table. Nothing per row is kept in memory: a store.Tables
// holds each table's slots and generation only, and counts come from the
// counters.
//
// Each Append is one transaction of the folder's group commit
// (datadir.DB.Update): durable when it returns, shared with the appends
// of other callers waiting at the same time. A write that does not fit
// on the disk fails with store.ErrFull and keeps nothing; reads go on.
//
// Long reads (series, scans, filtered reads over many rows) run in
// transactions of at most walkChunk rows, so that a read never holds the
// file for long: rows appended meanwhile in the part of the range still
// to be walked may be seen.

package folder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// FleetFile is the name of the data backends' file in a data folder,
// without its ".db".
const FleetFile = "fleet"

// Buckets of fleet.db.
var (
	bucketRealms   = []byte("realms")
	prefixTable    = "t/"
	prefixView     = "v/"
	errRealmClosed = errors.New("the realm's storage was removed (its realm left the configuration)")
)

// New returns the store that keeps rows in db, the data folder's
// fleet.db (datadir.Dir.DB(FleetFile)). The folder owns db: Close leaves
// it open.
func New(db *datadir.DB) store.Rows { return &boltStore{db: db} }

type boltStore struct {
	db *datadir.DB
}

// boltTables is the storage of one realm.
type boltTables struct {
	db       *datadir.DB
	realm    []byte
	tables   map[string]*boltTable
	views    map[string]*boltView
	examined atomic.Int64 // rows looked at by reads, for the scaling tests
}

// boltTable is a table of a realm: its schema and slots.
type boltTable struct {
	schema *store.TableSchema
	bucket []byte
	slots  []int  // schema column index → slot
	cols   []int  // slot → schema column index, -1 for a slot not read
	gen    uint64 // the catalog generation the slots are of
}

// boltView is a transform of a realm.
type boltView struct {
	schema *store.TransformSchema
	bucket []byte
}

func (s *boltStore) Close() error { return nil }

// Open creates what the realm's schema needs and brings each table's
// catalog in line with it (catalog.go): new tables and columns are
// added; removed and retyped columns are retired, their values kept until
// Drop. A changed entity key rebuilds the table's latest and unique
// buckets from its rows.
func (s *boltStore) Open(ctx context.Context, sc *store.Schema) (store.Tables, error) {
	var t *boltTables
	err := s.db.Update(ctx, func(tx *bolt.Tx) error {
		t = &boltTables{db: s.db, realm: []byte(sc.Realm), tables: map[string]*boltTable{}, views: map[string]*boltView{}}
		rs, err := datadir.CreateBucket(tx, bucketRealms)
		if err != nil {
			return err
		}
		rb, err := datadir.CreateBucket(rs, t.realm)
		if err != nil {
			return err
		}
		for _, ts := range sc.Tables {
			bt, err := openTable(rb, ts)
			if err != nil {
				return fmt.Errorf("table %q: %w", ts.Name, err)
			}
			t.tables[ts.Name] = bt
		}
		for _, vs := range sc.Transforms {
			v := &boltView{schema: vs, bucket: []byte(prefixView + vs.Name)}
			if _, err := datadir.CreateBucket(rb, v.bucket); err != nil {
				return err
			}
			t.views[vs.Name] = v
		}
		return nil
	})
	if err != nil {
		return nil, storeFailure(s.db, err)
	}
	return t, nil
}

// openTable makes a table's buckets and follows its catalog (in tx).
func openTable(rb *bolt.Bucket, ts *store.TableSchema) (*boltTable, error) {
	bt := &boltTable{schema: ts, bucket: []byte(prefixTable + ts.Name)}
	tb, err := datadir.CreateBucket(rb, bt.bucket)
	if err != nil {
		return nil, err
	}
	for _, name := range [][]byte{keyRows, keyLatest, keyUnique} {
		if _, err := datadir.CreateBucket(tb, name); err != nil {
			return nil, err
		}
	}
	cat, err := readCatalog(tb)
	if err != nil {
		return nil, err
	}
	fresh := cat == nil
	if fresh {
		cat = &catalog{}
	}
	slots, changed := cat.follow(ts)
	bt.setSlots(slots, cat.Next)
	if ids := entityIDs(ts); fresh || !slices.Equal(cat.Entity, ids) {
		cat.Entity, changed = ids, true
		if !fresh {
			if err := bt.rebuildIndexes(tb); err != nil {
				return nil, err
			}
		}
	}
	if len(cat.Erase) > 0 { // a Drop a kill cut short
		if _, err := eraseSlots(tb, cat, nil, -1); err != nil {
			return nil, err
		}
		changed = true
	}
	m, err := readMeta(tb)
	if err != nil {
		return nil, err
	}
	if changed {
		cat.Gen++
		if err := cat.write(tb); err != nil {
			return nil, err
		}
		m.gen = cat.Gen
		if err := datadir.Put(tb, keyMeta, m.bytes()); err != nil {
			return nil, err
		}
	}
	bt.gen = m.gen
	return bt, nil
}

// setSlots records the slot of each schema column and the inverse map.
func (bt *boltTable) setSlots(slots []int, next int) {
	bt.slots = slots
	bt.cols = make([]int, next)
	for i := range bt.cols {
		bt.cols[i] = -1
	}
	for i, s := range slots {
		bt.cols[s] = i
	}
}

// realmBucket returns the realm's bucket in tx.
func (t *boltTables) realmBucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	if rs := tx.Bucket(bucketRealms); rs != nil {
		if rb := rs.Bucket(t.realm); rb != nil {
			return rb, nil
		}
	}
	return nil, errRealmClosed
}

// tableBucket returns a table's bucket in tx.
func (t *boltTables) tableBucket(tx *bolt.Tx, bt *boltTable) (*bolt.Bucket, error) {
	rb, err := t.realmBucket(tx)
	if err != nil {
		return nil, err
	}
	tb := rb.Bucket(bt.bucket)
	if tb == nil {
		return nil, errRealmClosed
	}
	return tb, nil
}

// table returns a table for a call with ctx.
func (t *boltTables) table(ctx context.Context, name string) (*boltTable, error) {
	if bt := t.tables[name]; bt != nil {
		return bt, ctx.Err()
	}
	return nil, fmt.Errorf("data folder store: no table %q", name)
}

// view returns a transform for a call with ctx.
func (t *boltTables) view(ctx context.Context, name string) (*boltView, error) {
	if v := t.views[name]; v != nil {
		return v, ctx.Err()
	}
	return nil, fmt.Errorf("data folder store: no transform %q", name)
}

// storeFailure names the file in a failure of the store and makes a full
// disk store.ErrFull.
func storeFailure(db *datadir.DB, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, datadir.ErrFull):
		return fmt.Errorf("%w: %w", store.ErrFull, err)
	case errors.Is(err, store.ErrConflict), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return fmt.Errorf("%s: %w", db.Name(), err)
}
