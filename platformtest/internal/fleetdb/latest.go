// This file holds the latest marker of history reads (the seed's seven
// rules; docs/wire.md §7.5, docs/fake.md §3), for history.transformed.<t>:
//
//  1. {"latest": true} in filterAnd returns only the newest row per
//     entity;
//  2. the entity is the table's maintainLatestFlagFor key (DISTINCT ON);
//  3. a table without entity key returns its single newest row that
//     matches the conditions and the time range (offset ignored);
//  4. conditions on entity-key columns narrow the entities;
//  5. every other condition and the time range apply to the latest rows,
//     so an entity whose newest row is filtered out (deleted) disappears
//     instead of showing an older row;
//  6. the legacy condition latest_flag = true (true, "true", 1 or "1") is
//     the marker (filter.go);
//  7. series refuse the marker (series.go).
//
// Then the newest first order by (tsp, sequence), offset and limit as for
// any read. Entities are read from the latest-row index, so the cost
// follows the number of entities, not the number of rows. Rows whose
// entity key holds NULL form one entity per distinct key, NULL equal to
// NULL, as DISTINCT ON groups them.

package fleetdb

import "slices"

// latestRows returns the latest rows of a read, newest first. Conditions
// on entity-key columns are the same for every row of an entity, so
// applying them to its newest row narrows the entities exactly as applying
// them before DISTINCT ON does. Caller holds b.mu.
func (b *backend) latestRows(t *table, c cond, start, end timeBound, offset, limit int64) []*row {
	if t.latest == nil {
		if limit == 0 {
			return nil
		}
		lo, hi := t.span(start, end)
		n := int64(0)
		defer func() { b.examined.Add(n) }()
		for i := hi - 1; i >= lo; i-- {
			n++
			if c == nil || c(t.rows[i].vals) == triTrue {
				return []*row{t.rows[i]}
			}
		}
		return nil
	}
	var hits []*row
	for _, r := range t.latest {
		if start.set && r.tsp < start.ms || end.set && r.tsp >= end.ms {
			continue
		}
		if c == nil || c(r.vals) == triTrue {
			hits = append(hits, r)
		}
	}
	b.examined.Add(int64(len(t.latest)))
	slices.SortFunc(hits, func(x, y *row) int {
		switch {
		case x.after(y):
			return -1
		case y.after(x):
			return 1
		}
		return 0
	})
	if offset >= int64(len(hits)) {
		return nil
	}
	hits = hits[offset:]
	return hits[:min(int64(len(hits)), limit)]
}
