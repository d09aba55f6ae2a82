// This file holds the memory store itself (memory.go holds a realm's
// tables): its realms, kept for the life of the store so that a realm
// reopened after a migration keeps its rows, its bound on the rows it
// holds (RowLimit: flockd -memory-rows) and on their bytes
// (ByteLimit: -memory-bytes, bytes.go), and what it offers the
// reconciliation (RealmDropper, Dropper, RowCounter: store.go). It serves
// no URI.

package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Option configures New.
type Option func(*memStore)

// RowLimit bounds the rows the memory store holds over every realm
// to limit (≤ 0: no bound): an append that would pass it fails with
// store.ErrFull (the platform's storage_full), and reads go on. full,
// when not nil, is called with the limit when an append is refused after
// appends were accepted (once per time the store fills, not per row).
func RowLimit(limit int64, full func(limit int64)) Option {
	return func(s *memStore) { s.limit, s.onFull = max(limit, 0), full }
}

// ByteLimit bounds the bytes the memory store's rows hold over every
// realm, as rowBytes estimates them, to limit (≤ 0: no bound): an append
// that would pass it fails with store.ErrFull, and reads go on. full,
// when not nil, is called with the limit when an append is refused after
// appends were accepted, like RowLimit's.
func ByteLimit(limit int64, full func(limit int64)) Option {
	return func(s *memStore) { s.byteLimit, s.onBytesFull = max(limit, 0), full }
}

// New returns a store.Rows that keeps every realm's rows in memory,
// for the life of the store.
func New(opts ...Option) store.Rows {
	s := &memStore{realms: map[string]*memTables{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

type memStore struct {
	limit    int64
	onFull   func(int64)
	rows     atomic.Int64 // rows held over every realm
	refusing atomic.Bool  // the last append over a bound was refused

	byteLimit   int64
	onBytesFull func(int64)
	bytes       atomic.Int64 // the rows' estimated bytes over every realm

	mu     sync.Mutex // guards realms
	realms map[string]*memTables
}

func (s *memStore) Close() error { return nil }

// Open returns the realm's storage: new, or the storage it had, laid out
// for the schema when the schema changed (after a migration, which
// dropped what the new template removes): rows keep the values of the
// columns whose id, type and secrecy are unchanged; new columns are NULL.
func (s *memStore) Open(_ context.Context, sc *store.Schema) (store.Tables, error) {
	m := &memTables{store: s, tables: map[string]*memTable{}, views: map[string]*memView{}}
	for _, ts := range sc.Tables {
		t := &memTable{schema: ts, nextID: 1}
		if len(ts.EntityKey) > 0 {
			t.latest, t.uniq = map[string]*memRow{}, map[string]bool{}
		}
		m.tables[ts.Name] = t
	}
	for _, vs := range sc.Transforms {
		m.views[vs.Name] = &memView{schema: vs}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.realms[sc.Realm]; old != nil {
		s.relay(old, m)
	}
	s.realms[sc.Realm] = m
	return m, nil
}

// relay moves the rows of old into m, the same realm's storage for a new
// schema, and marks old replaced.
func (s *memStore) relay(old, m *memTables) {
	old.mu.Lock()
	defer old.mu.Unlock()
	old.replaced = true
	m.seq = old.seq
	for name, ot := range old.tables {
		t := m.tables[name]
		if t == nil {
			s.rows.Add(-int64(len(ot.rows)))
			s.bytes.Add(-ot.bytes)
			continue
		}
		t.bytes = ot.bytes                         // the kept columns' values are shared: at most as large
		from := make([]int, len(t.schema.Columns)) // new index → old index, -1
		for i, c := range t.schema.Columns {
			from[i] = slices.IndexFunc(ot.schema.Columns, func(o store.Column) bool {
				return o.ID == c.ID && o.Type == c.Type && o.Secret == c.Secret
			})
		}
		rows := make([]*memRow, len(ot.rows))
		for n, r := range ot.rows {
			vals := make([]any, len(from))
			for i, j := range from {
				if j >= 0 {
					vals[i] = r.vals[j]
				}
			}
			rows[n] = &memRow{seq: r.seq, tsp: r.tsp, vals: vals}
		}
		t.nextID = ot.nextID
		if len(rows) > 0 {
			t.add(rows)
		}
	}
	for name, ov := range old.views {
		if v := m.views[name]; v != nil {
			v.rows = ov.rows
		}
	}
}

// reserve counts n more rows of size bytes against the bounds, or
// refuses them.
func (s *memStore) reserve(n, size int64) error {
	rows, bytes := s.rows.Add(n), s.bytes.Add(size)
	var err error
	var full func(int64)
	var limit int64
	switch {
	case s.limit > 0 && rows > s.limit:
		err = fmt.Errorf("%w: the in-memory store holds its limit of %d rows", store.ErrFull, s.limit)
		full, limit = s.onFull, s.limit
	case s.byteLimit > 0 && bytes > s.byteLimit:
		err = fmt.Errorf("%w: the in-memory store holds its limit of %d bytes of rows (%d rows of %d bytes do not fit)",
			store.ErrFull, s.byteLimit, n, size)
		full, limit = s.onBytesFull, s.byteLimit
	}
	if err == nil {
		s.refusing.Store(false)
		return nil
	}
	s.rows.Add(-n)
	s.bytes.Add(-size)
	if s.refusing.CompareAndSwap(false, true) && full != nil {
		full(limit)
	}
	return err
}

// DropRealm drops a realm's storage.
func (s *memStore) DropRealm(_ context.Context, realm string) error {
	s.mu.Lock()
	m := s.realms[realm]
	delete(s.realms, realm)
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replaced = true
	for _, t := range m.tables {
		s.rows.Add(-int64(len(t.rows)))
		s.bytes.Add(-t.bytes)
	}
	return nil
}

// Drop removes tables and sets dropped columns to NULL in every row (the
// next Open, with the new schema, lays the rest out).
func (s *memStore) Drop(_ context.Context, realm string, tables []string, columns map[string][]string) error {
	s.mu.Lock()
	m := s.realms[realm]
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range tables { // emptied: the map is fixed at Open
		if t := m.tables[name]; t != nil {
			s.rows.Add(-int64(len(t.rows)))
			s.bytes.Add(-t.bytes)
			t.rows, t.bytes = nil, 0
			if t.latest != nil {
				t.latest, t.uniq = map[string]*memRow{}, map[string]bool{}
			}
		}
	}
	for name, ids := range columns {
		t := m.tables[name]
		if t == nil {
			continue
		}
		for i, c := range t.schema.Columns {
			if slices.Contains(ids, c.ID) {
				for _, r := range t.rows {
					r.vals[i] = nil
				}
			}
		}
	}
	return nil
}

// CountRows returns how many rows the store holds.
func (s *memStore) CountRows(ctx context.Context) (int64, error) { return s.rows.Load(), ctx.Err() }

// Bytes returns the bytes the store's rows hold, as estimated for
// ByteLimit.
func (s *memStore) Bytes() int64 { return s.bytes.Load() }
