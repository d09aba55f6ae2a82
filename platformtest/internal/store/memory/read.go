// This file holds the reads of the memory store (memory.go): table reads
// with the latest marker (the rules are on store.ReadQuery, rows_query.go), series
// through SeriesBuilder (series_agg.go) and transform reads. Each counts
// the rows it looks at. It serves no URI.

package memory

import (
	"context"
	"slices"
	"sort"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// span returns the index range [lo, hi) of the rows with start ≤ tsp < end
// (open bounds when unset). Caller holds mu.
func (t *memTable) span(start, end store.Bound) (lo, hi int) {
	lo, hi = 0, len(t.rows)
	if start.Set {
		lo = sort.Search(len(t.rows), func(i int) bool { return t.rows[i].tsp >= start.Ms })
	}
	if end.Set {
		hi = sort.Search(len(t.rows), func(i int) bool { return t.rows[i].tsp >= end.Ms })
	}
	return lo, max(lo, hi)
}

// Read returns the rows a store.ReadQuery selects, newest first.
func (m *memTables) Read(ctx context.Context, table string, q *store.ReadQuery) ([][]any, error) {
	t, err := m.table(ctx, table)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if q.Latest {
		return m.latestRows(t, q), nil
	}
	return m.selectRows(t, q), nil
}

// selectRows returns the newest matching rows of the time range after
// offset, newest first. Without a condition it indexes straight into the
// range. Caller holds mu.
func (m *memTables) selectRows(t *memTable, q *store.ReadQuery) [][]any {
	lo, hi := t.span(q.Start, q.End)
	var out [][]any
	if q.Filter == nil {
		from := int64(hi) - 1 - q.Offset
		out = make([][]any, 0, max(0, min(q.Limit, from-int64(lo)+1)))
		for i := from; i >= int64(lo) && int64(len(out)) < q.Limit; i-- {
			out = append(out, t.rows[i].vals)
		}
		m.examined.Add(int64(len(out)))
		return out
	}
	skip, n := q.Offset, int64(0)
	for i := hi - 1; i >= lo && int64(len(out)) < q.Limit; i-- {
		n++
		r := t.rows[i]
		if !q.Filter.Match(r.vals) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, r.vals)
	}
	m.examined.Add(n)
	return out
}

// latestRows returns the latest rows of a read, newest first. Conditions
// on entity-key columns are the same for every row of an entity, so
// applying them to its newest row narrows the entities exactly as applying
// them before DISTINCT ON does. Entities are read from the latest-row
// index, so the cost follows the number of entities, not the number of
// rows. Caller holds mu.
func (m *memTables) latestRows(t *memTable, q *store.ReadQuery) [][]any {
	if t.latest == nil {
		if q.Limit == 0 || len(t.rows) == 0 {
			return nil
		}
		m.examined.Add(1)
		r := t.rows[len(t.rows)-1]
		if !store.InRange(r.tsp, q.Start, q.End) || !q.Filter.Match(r.vals) {
			return nil
		}
		return [][]any{r.vals}
	}
	var hits []*memRow
	for _, r := range t.latest {
		if store.InRange(r.tsp, q.Start, q.End) && q.Filter.Match(r.vals) {
			hits = append(hits, r)
		}
	}
	m.examined.Add(int64(len(t.latest)))
	slices.SortFunc(hits, func(x, y *memRow) int {
		switch {
		case x.after(y):
			return -1
		case y.after(x):
			return 1
		}
		return 0
	})
	if q.Offset >= int64(len(hits)) {
		return nil
	}
	hits = hits[q.Offset:]
	hits = hits[:min(int64(len(hits)), q.Limit)]
	out := make([][]any, len(hits))
	for i, r := range hits {
		out[i] = r.vals
	}
	return out
}

// Series folds the rows of the query's range into its groups.
func (m *memTables) Series(ctx context.Context, table string, q *store.SeriesQuery) ([]store.SeriesGroup, error) {
	t, err := m.table(ctx, table)
	if err != nil {
		return nil, err
	}
	sb := store.NewSeriesBuilder(t.schema, q)
	m.mu.RLock()
	defer m.mu.RUnlock()
	lo, hi := t.span(store.Bound{Set: true, Ms: q.Start}, store.Bound{Set: true, Ms: q.End})
	m.examined.Add(int64(hi - lo))
	for _, r := range t.rows[lo:hi] {
		if err := sb.Add(r.vals); err != nil {
			return nil, err
		}
	}
	return sb.Groups(), nil
}

// ReadTransform returns the rows of a transform a query selects, in the
// view's order.
func (m *memTables) ReadTransform(ctx context.Context, transform string, q *store.TransformQuery) ([]map[string]any, error) {
	v, err := m.view(ctx, transform)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	page := store.NewTransformPage(q, v.schema.Columns)
	for _, r := range v.rows {
		if !page.Add(r) {
			break
		}
	}
	return page.Rows, nil
}

// Examined returns how many stored rows the realm's reads have looked at
// so far, for tests that check that a read's cost follows its result.
func (m *memTables) Examined() int64 { return m.examined.Load() }
