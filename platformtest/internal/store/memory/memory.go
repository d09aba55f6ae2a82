// This file holds the memory store, the default store.Rows (package store): the
// rows of each table in memory, ordered by (tsp, insertion sequence), the
// newest row per entity as an index, the entity-key uniqueness index and
// the rows of each transform as supplied (SetTransformRows). Its writes
// are here, its reads in read.go. It serves no URI.
//
// Costs: appending rows in tsp order is O(1) amortised; a row older than
// the newest is placed by binary search; a batch is sorted and merged;
// time-range bounds are found by binary search; the latest rows per
// entity are read from the index. Reads count the rows they look at
// (examined), so tests can check that a read's cost follows its result,
// not the table's size.
//
// Nothing is durable: the rows live as long as the store. The store
// itself (its realms, its bound on rows, what it offers the
// reconciliation) is in keep.go.

package memory

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// memTables is the memory storage of one realm. The maps are fixed at
// Open; mu guards the rows.
type memTables struct {
	store    *memStore
	mu       sync.RWMutex
	replaced bool // a migration made new storage for the realm (guarded by mu)
	tables   map[string]*memTable
	views    map[string]*memView
	seq      int64        // the last insertion sequence
	examined atomic.Int64 // rows looked at by reads, for the scaling tests
}

// memRow is a stored row; vals holds one value per column of its table.
type memRow struct {
	seq  int64
	tsp  int64
	vals []any
}

// after reports whether a is newer than b by (tsp, seq).
func (a *memRow) after(b *memRow) bool {
	return a.tsp > b.tsp || (a.tsp == b.tsp && a.seq > b.seq)
}

// memTable holds the rows of one table.
type memTable struct {
	schema *store.TableSchema
	rows   []*memRow          // ordered by (tsp, seq)
	latest map[string]*memRow // entity key → newest row (entity tables)
	uniq   map[string]bool    // entity key + tsp (entity tables)
	nextID int64              // the next id of error-logs
	bytes  int64              // the rows' estimated bytes (bytes.go)
}

// memView holds the rows of a transform, typed, in the view's order.
type memView struct {
	schema *store.TransformSchema
	rows   []map[string]any
}

// table returns a table for a call with ctx: an error for an unknown
// table or a call already cancelled.
func (m *memTables) table(ctx context.Context, name string) (*memTable, error) {
	if t := m.tables[name]; t != nil {
		return t, ctx.Err()
	}
	return nil, fmt.Errorf("memory store: no table %q", name)
}

// view returns a transform as table returns a table.
func (m *memTables) view(ctx context.Context, name string) (*memView, error) {
	if v := m.views[name]; v != nil {
		return v, ctx.Err()
	}
	return nil, fmt.Errorf("memory store: no transform %q", name)
}

// Append stores rows as store.Tables.Append says. It keeps the rows' value
// slices.
func (m *memTables) Append(ctx context.Context, table string, rows []*store.NewRow) error {
	t, err := m.table(ctx, table)
	if err != nil {
		return err
	}
	s := t.schema
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replaced {
		return store.ErrSchemaChanged
	}
	var size int64
	for _, nr := range rows {
		size += rowBytes(nr.Vals)
	}
	if err := m.store.reserve(int64(len(rows)), size); err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			m.store.rows.Add(-int64(len(rows)))
			m.store.bytes.Add(-size)
		}
	}()
	var staged map[string]*memRow
	var stagedUniq map[string]bool
	if t.latest != nil {
		staged, stagedUniq = map[string]*memRow{}, map[string]bool{}
	}
	stored := make([]*memRow, len(rows))
	for i, nr := range rows {
		nr.Merged = false
		r := &memRow{seq: m.seq + int64(i) + 1, tsp: nr.Vals[s.TSP].(int64), vals: nr.Vals}
		if key, complete := t.entityKey(r.vals); complete {
			prev := t.latest[key]
			if st := staged[key]; st != nil && (prev == nil || st.after(prev)) {
				prev = st
			}
			for j, carry := range nr.Carry {
				if carry && prev != nil && !s.Columns[j].Implicit && j != s.TSP {
					r.vals[j] = prev.vals[j]
					nr.Merged = true
				}
			}
			u := uniqKey(key, r.tsp)
			if t.uniq[u] || stagedUniq[u] {
				return fmt.Errorf("table %q: %w", table, store.ErrConflict)
			}
			stagedUniq[u] = true
			if cur := staged[key]; cur == nil || r.after(cur) {
				staged[key] = r
			}
		}
		stored[i] = r
	}
	for _, r := range stored {
		m.seq++
		if s.ID >= 0 {
			r.vals[s.ID] = t.nextID
			t.nextID++
		}
	}
	t.add(stored)
	t.bytes += size
	ok = true
	return nil
}

// entityKey encodes the entity key of a row's values (entityKeyOf).
func (t *memTable) entityKey(vals []any) (key string, complete bool) {
	return t.schema.EntityKeyOf(vals)
}

// uniqKey is the key of the UNIQUE (entity key, tsp) constraint.
func uniqKey(entity string, tsp int64) string {
	return entity + strconv.FormatInt(tsp, 10)
}

// add stores rows, keeping the order and the indexes. Rows in tsp order
// after the newest are appended; a large unordered batch is sorted and
// merged; a few late rows are placed by binary search. Caller holds mu.
func (t *memTable) add(rs []*memRow) {
	n := len(t.rows)
	inOrder := n == 0 || !t.rows[n-1].after(rs[0])
	for i := 1; inOrder && i < len(rs); i++ {
		inOrder = !rs[i-1].after(rs[i])
	}
	switch {
	case inOrder:
		t.rows = append(t.rows, rs...)
	case len(rs) > 32:
		sorted := slices.Clone(rs)
		slices.SortStableFunc(sorted, func(a, b *memRow) int {
			if a.after(b) {
				return 1
			}
			if b.after(a) {
				return -1
			}
			return 0
		})
		merged := make([]*memRow, 0, n+len(sorted))
		i, j := 0, 0
		for i < n || j < len(sorted) {
			if j == len(sorted) || (i < n && !t.rows[i].after(sorted[j])) {
				merged = append(merged, t.rows[i])
				i++
			} else {
				merged = append(merged, sorted[j])
				j++
			}
		}
		t.rows = merged
	default:
		for _, r := range rs {
			k := sort.Search(len(t.rows), func(i int) bool { return t.rows[i].after(r) })
			t.rows = slices.Insert(t.rows, k, r)
		}
	}
	if t.latest == nil {
		return
	}
	for _, r := range rs {
		key, complete := t.entityKey(r.vals)
		if cur := t.latest[key]; cur == nil || r.after(cur) {
			t.latest[key] = r
		}
		if complete {
			t.uniq[uniqKey(key, r.tsp)] = true
		}
	}
}

// Scan yields the rows of a table oldest first. It reads a snapshot of
// the row list, so the caller may use the store while it iterates.
func (m *memTables) Scan(ctx context.Context, table string) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		t, err := m.table(ctx, table)
		if err != nil {
			yield(nil, err)
			return
		}
		m.mu.RLock()
		rows := slices.Clone(t.rows)
		m.mu.RUnlock()
		for _, r := range rows {
			if !yield(r.vals, nil) {
				return
			}
		}
	}
}

// Count returns the number of rows of a table.
func (m *memTables) Count(ctx context.Context, table string) (int64, error) {
	t, err := m.table(ctx, table)
	if err != nil {
		return 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return int64(len(t.rows)), nil
}

// Span returns the tsp of the oldest and newest row of a table.
func (m *memTables) Span(ctx context.Context, table string) (oldest, newest int64, ok bool, err error) {
	t, err := m.table(ctx, table)
	if err != nil {
		return 0, 0, false, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(t.rows) == 0 {
		return 0, 0, false, nil
	}
	return t.rows[0].tsp, t.rows[len(t.rows)-1].tsp, true, nil
}

// SetTransformRows replaces the rows of a transform.
func (m *memTables) SetTransformRows(ctx context.Context, transform string, rows []map[string]any) error {
	v, err := m.view(ctx, transform)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v.rows = rows
	return nil
}
