// This file holds the reads of the data folder's store (folder.go):
// table reads newest first from the end of their time range, the latest
// marker from the latest bucket (the rules are on store.ReadQuery, query.go),
// series through SeriesBuilder, scans, counts and spans, and transform
// reads. Walks over many rows run in transactions of walkChunk rows. It
// serves no URI.

package folder

import (
	"bytes"
	"context"
	"iter"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// walkChunk is the most rows one read transaction of a walk visits.
const walkChunk = 4096

// trimAfter is how many rows a walk visits before it trims the file's
// mapping from the resident set when it ends (datadir.DB.Trim).
const trimAfter = 16 * walkChunk

// span is the part of a table a walk visits: the rows with start ≤ tsp <
// end, oldest first or newest first (reverse), after the row key after
// (nil: from the range's first row).
type span struct {
	start, end store.Bound
	reverse    bool
	after      []byte
}

// walk calls fn with the key and stored value of each row of sp in order,
// inside a read transaction (the bytes are bbolt's: valid during the call
// only), until fn returns false, an error, or the span ends.
func (t *boltTables) walk(ctx context.Context, bt *boltTable, sp span, fn func(k, raw []byte) (bool, error)) error {
	resume := slices.Clone(sp.after)
	visited := 0
	defer func() {
		if visited >= trimAfter {
			t.db.Trim() // the pages read leave the resident set
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		done := false
		err := t.db.View(func(tx *bolt.Tx) error {
			tb, err := t.tableBucket(tx, bt)
			if err != nil {
				return err
			}
			c := tb.Bucket(keyRows).Cursor()
			k, raw := sp.first(c, resume)
			for n := 0; ; n++ {
				if k == nil || !sp.within(k) {
					done = true
					return nil
				}
				if n == walkChunk {
					return nil // the next transaction goes on after resume
				}
				t.examined.Add(1)
				visited++
				more, err := fn(k, raw)
				if err != nil || !more {
					done = true
					return err
				}
				resume = append(resume[:0], k...)
				if sp.reverse {
					k, raw = c.Prev()
				} else {
					k, raw = c.Next()
				}
			}
		})
		if err != nil || done {
			return err
		}
	}
}

// first positions c at the first row of the span after resume (nil: the
// span's first row).
func (sp span) first(c *bolt.Cursor, resume []byte) (k, raw []byte) {
	switch {
	case resume != nil && sp.reverse:
		if k, _ = c.Seek(resume); k == nil {
			return c.Last()
		}
		return c.Prev()
	case resume != nil:
		if k, raw = c.Seek(resume); k != nil && bytes.Equal(k, resume) {
			return c.Next()
		}
		return k, raw
	case sp.reverse && sp.end.Set:
		if k, _ = c.Seek(tspKey(sp.end.Ms)); k == nil {
			return c.Last()
		}
		return c.Prev()
	case sp.reverse:
		return c.Last()
	case sp.start.Set:
		return c.Seek(tspKey(sp.start.Ms))
	}
	return c.First()
}

// within reports whether the row key k is inside the span's far bound
// (the near one is where the walk starts).
func (sp span) within(k []byte) bool {
	if sp.reverse {
		return !sp.start.Set || keyTsp(k) >= sp.start.Ms
	}
	return !sp.end.Set || keyTsp(k) < sp.end.Ms
}

// Read returns the rows a store.ReadQuery selects, newest first.
func (t *boltTables) Read(ctx context.Context, table string, q *store.ReadQuery) ([][]any, error) {
	bt, err := t.table(ctx, table)
	if err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		return nil, nil
	}
	if q.Latest {
		return t.latestRows(bt, q)
	}
	var out [][]any
	skip := q.Offset
	err = t.walk(ctx, bt, span{start: q.Start, end: q.End, reverse: true}, func(k, raw []byte) (bool, error) {
		if q.Filter == nil && skip > 0 { // no condition: skip without decoding
			skip--
			return true, nil
		}
		vals, err := bt.decode(k, raw)
		if err != nil {
			return false, err
		}
		if !q.Filter.Match(vals) {
			return true, nil
		}
		if skip > 0 {
			skip--
			return true, nil
		}
		out = append(out, vals)
		return int64(len(out)) < q.Limit, nil
	})
	if err != nil {
		return nil, storeFailure(t.db, err)
	}
	return out, nil
}

// latestRows returns the rows of a read with the latest marker: the
// newest row of each entity, read from the latest bucket (so the cost
// follows the number of entities, not of rows), or the table's newest row
// for a table without entity key.
func (t *boltTables) latestRows(bt *boltTable, q *store.ReadQuery) ([][]any, error) {
	type hit struct {
		key  []byte
		vals []any
	}
	var hits []hit
	err := t.db.View(func(tx *bolt.Tx) error {
		tb, err := t.tableBucket(tx, bt)
		if err != nil {
			return err
		}
		rb := tb.Bucket(keyRows)
		consider := func(k []byte) error {
			t.examined.Add(1)
			if !store.InRange(keyTsp(k), q.Start, q.End) {
				return nil
			}
			vals, err := bt.row(rb, k)
			if err != nil || !q.Filter.Match(vals) {
				return err
			}
			hits = append(hits, hit{key: slices.Clone(k), vals: vals})
			return nil
		}
		if len(bt.schema.EntityKey) == 0 {
			if k, _ := rb.Cursor().Last(); k != nil {
				return consider(k)
			}
			return nil
		}
		return tb.Bucket(keyLatest).ForEach(func(ek, raw []byte) error {
			k, err := datadir.Value(ek, raw)
			if err != nil {
				return err
			}
			return consider(k)
		})
	})
	if err != nil {
		return nil, storeFailure(t.db, err)
	}
	slices.SortFunc(hits, func(x, y hit) int { return bytes.Compare(y.key, x.key) })
	if len(bt.schema.EntityKey) > 0 {
		hits = hits[min(q.Offset, int64(len(hits))):]
	}
	hits = hits[:min(q.Limit, int64(len(hits)))]
	out := make([][]any, len(hits))
	for i, h := range hits {
		out[i] = h.vals
	}
	return out, nil
}

// Series folds the rows of the query's range into its groups.
func (t *boltTables) Series(ctx context.Context, table string, q *store.SeriesQuery) ([]store.SeriesGroup, error) {
	bt, err := t.table(ctx, table)
	if err != nil {
		return nil, err
	}
	sb := store.NewSeriesBuilder(bt.schema, q)
	sp := span{start: store.Bound{Set: true, Ms: q.Start}, end: store.Bound{Set: true, Ms: q.End}}
	err = t.walk(ctx, bt, sp, func(k, raw []byte) (bool, error) {
		vals, err := bt.decode(k, raw)
		if err != nil {
			return false, err
		}
		return true, sb.Add(vals)
	})
	if err != nil {
		return nil, storeFailure(t.db, err)
	}
	return sb.Groups(), nil
}

// Scan yields the rows of a table oldest first, reading them in chunks
// between which the caller may use the store.
func (t *boltTables) Scan(ctx context.Context, table string) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		bt, err := t.table(ctx, table)
		if err != nil {
			yield(nil, err)
			return
		}
		var after []byte
		for {
			var chunk [][]any
			err := t.walk(ctx, bt, span{after: after}, func(k, raw []byte) (bool, error) {
				vals, err := bt.decode(k, raw)
				if err != nil {
					return false, err
				}
				chunk = append(chunk, vals)
				after = append(after[:0], k...)
				return len(chunk) < walkChunk, nil
			})
			if err != nil {
				yield(nil, storeFailure(t.db, err))
				return
			}
			for _, vals := range chunk {
				if !yield(vals, nil) {
					return
				}
			}
			if len(chunk) < walkChunk {
				return
			}
		}
	}
}

// Count returns the number of rows of a table, from its counters.
func (t *boltTables) Count(ctx context.Context, table string) (int64, error) {
	bt, err := t.table(ctx, table)
	if err != nil {
		return 0, err
	}
	var m meta
	err = t.db.View(func(tx *bolt.Tx) error {
		tb, err := t.tableBucket(tx, bt)
		if err == nil {
			m, err = readMeta(tb)
		}
		return err
	})
	return int64(m.count), storeFailure(t.db, err)
}

// Span returns the tsp of the oldest and newest row of a table.
func (t *boltTables) Span(ctx context.Context, table string) (oldest, newest int64, ok bool, err error) {
	bt, err := t.table(ctx, table)
	if err != nil {
		return 0, 0, false, err
	}
	err = t.db.View(func(tx *bolt.Tx) error {
		tb, err := t.tableBucket(tx, bt)
		if err != nil {
			return err
		}
		c := tb.Bucket(keyRows).Cursor()
		first, _ := c.First()
		last, _ := c.Last()
		if ok = first != nil; ok {
			oldest, newest = keyTsp(first), keyTsp(last)
		}
		return nil
	})
	return oldest, newest, ok, storeFailure(t.db, err)
}

// ReadTransform returns the rows of a transform a query selects, in the
// view's order.
func (t *boltTables) ReadTransform(ctx context.Context, transform string, q *store.TransformQuery) ([]map[string]any, error) {
	v, err := t.view(ctx, transform)
	if err != nil {
		return nil, err
	}
	page := store.NewTransformPage(q, v.schema.Columns)
	err = t.db.View(func(tx *bolt.Tx) error {
		rb, err := t.realmBucket(tx)
		if err != nil {
			return err
		}
		vb := rb.Bucket(v.bucket)
		if vb == nil {
			return errRealmClosed
		}
		c := vb.Cursor()
		for k, raw := c.First(); k != nil; k, raw = c.Next() {
			enc, err := datadir.Value(k, raw)
			if err != nil {
				return err
			}
			x, _, err := readValue(enc)
			if err != nil {
				return err
			}
			r, _ := x.(map[string]any)
			if !page.Add(r) {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, storeFailure(t.db, err)
	}
	return page.Rows, nil
}

// Examined returns how many stored rows the realm's reads have looked at
// so far, for tests that check that a read's cost follows its result.
func (t *boltTables) Examined() int64 { return t.examined.Load() }
