// This file holds the table reads of the PostgreSQL store (postgres.go):
// store.ReadQuery as one statement (the rules are on store.ReadQuery, query.go), Scan,
// Count and Span, and the values read back in their stored forms. It
// serves no URI.
//
//	plain:   SELECT … WHERE range AND filter ORDER BY tsp DESC, _seq DESC OFFSET … LIMIT …
//	latest:  SELECT … FROM (SELECT DISTINCT ON (key…) * … WHERE <conditions on the key only>
//	         ORDER BY key…, tsp DESC, _seq DESC) WHERE range AND filter ORDER BY … OFFSET … LIMIT …
//	no key:  SELECT … FROM (SELECT * … ORDER BY tsp DESC, _seq DESC LIMIT 1) WHERE range AND filter
//
// The index on (tsp, _seq) serves the plain read backwards; the one on
// (key…, tsp DESC, _seq DESC) the latest rows per entity in order.

package postgres

import (
	"context"
	"fmt"
	"iter"
	"net/netip"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// filter returns a filter compiler over the table's columns.
func (t *pgTables) filter(pt *pgTable, args *sqlArgs) *pgFilter {
	return &pgFilter{args: args, cols: pt.ts.Columns, meta: qi(t.s.meta), fold: t.s.fold, col: func(i int) string { return qi(pt.cols[i]) }}
}

// rangeSQL is start ≤ tsp < end, TRUE for open bounds.
func rangeSQL(args *sqlArgs, start, end store.Bound) string {
	var conds []string
	if start.Set {
		if start.Ms >= pgMaxMs {
			return "FALSE"
		}
		if start.Ms > pgMinMs {
			conds = append(conds, "tsp >= "+args.add(time.UnixMilli(start.Ms).UTC())+"::timestamptz")
		}
	}
	if end.Set {
		if end.Ms <= pgMinMs {
			return "FALSE"
		}
		if end.Ms < pgMaxMs {
			conds = append(conds, "tsp < "+args.add(time.UnixMilli(end.Ms).UTC())+"::timestamptz")
		}
	}
	if len(conds) == 0 {
		return "TRUE"
	}
	return strings.Join(conds, " AND ")
}

// order is the newest-first order of reads.
var order = "tsp DESC, " + qi(seqColumn) + " DESC"

// Read returns the rows a store.ReadQuery selects, newest first.
func (t *pgTables) Read(ctx context.Context, table string, q *store.ReadQuery) ([][]any, error) {
	pt, err := t.table(ctx, table)
	if err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		return nil, nil
	}
	cols := q.Columns
	if cols == nil {
		cols = make([]int, len(pt.cols))
		for i := range cols {
			cols[i] = i
		}
	}
	stmt, args := t.readSQL(pt, q, cols)
	rows, err := t.s.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	return collectRows(rows, pt, cols)
}

// readSQL returns the statement of a table read with the columns cols and
// its arguments.
func (t *pgTables) readSQL(pt *pgTable, q *store.ReadQuery, cols []int) (string, sqlArgs) {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = qi(pt.cols[c])
	}
	var args sqlArgs
	f := t.filter(pt, &args)
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s FROM ", strings.Join(sel, ", "))
	ts := pt.ts
	switch {
	case !q.Latest:
		b.WriteString(pt.name)
	case len(ts.EntityKey) == 0:
		fmt.Fprintf(&b, "(SELECT * FROM %s ORDER BY %s LIMIT 1) AS newest", pt.name, order)
	default:
		keys := make([]string, len(ts.EntityKey))
		for i, k := range ts.EntityKey {
			keys[i] = qi(pt.cols[k])
		}
		list := strings.Join(keys, ", ")
		fmt.Fprintf(&b, "(SELECT DISTINCT ON (%s) * FROM %s WHERE %s ORDER BY %s, %s) AS latest",
			list, pt.name, f.sql(keyConditions(q.Filter, ts.EntityKey)), list, order)
	}
	fmt.Fprintf(&b, " WHERE %s AND %s ORDER BY %s", rangeSQL(&args, q.Start, q.End), f.sql(q.Filter), order)
	if q.Offset > 0 && !(q.Latest && len(ts.EntityKey) == 0) {
		fmt.Fprintf(&b, " OFFSET %s", args.add(q.Offset))
	}
	fmt.Fprintf(&b, " LIMIT %s", args.add(q.Limit))
	return b.String(), args
}

// keyConditions returns the top-level conditions of f that touch only the
// entity key's columns: they are the same for every row of an entity, so
// they narrow the entities before DISTINCT ON (rule 4 of store.ReadQuery).
func keyConditions(f *store.Filter, key []int) *store.Filter {
	onKey := func(n *store.Filter) bool { return onlyColumns(n, key) }
	switch {
	case f == nil:
		return nil
	case f.Op == "AND":
		var keep []*store.Filter
		for _, n := range f.Nodes {
			if onKey(n) {
				keep = append(keep, n)
			}
		}
		return store.Combine(keep, false)
	case onKey(f):
		return f
	}
	return nil
}

// onlyColumns reports whether every condition of f is on one of cols.
func onlyColumns(f *store.Filter, cols []int) bool {
	if f.Op == "AND" || f.Op == "OR" {
		for _, n := range f.Nodes {
			if !onlyColumns(n, cols) {
				return false
			}
		}
		return true
	}
	for _, c := range cols {
		if f.Col == c {
			return true
		}
	}
	return false
}

// collectRows reads rows with the columns cols of a table into rows of
// the table's width.
func collectRows(rows pgx.Rows, pt *pgTable, cols []int) ([][]any, error) {
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vs, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]any, len(pt.cols))
		for j, c := range cols {
			if row[c], err = storedValue(pt.ts.Columns[c].Type, vs[j]); err != nil {
				return nil, fmt.Errorf("column %q: %w", pt.cols[c], err)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// storedValue converts a value the driver read from a column of type typ
// to its stored form (package store).
func storedValue(typ template.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if x, ok := store.TypeOf(typ).SQLScan(v); ok {
		return x, nil
	}
	return nil, fmt.Errorf("postgres store: a %s column read %T", typ, v)
}

// pgValue converts a value the driver read from a column of any type
// (a transform's undeclared columns) to the forms of json values: time
// as ISO text with milliseconds, numbers as float64 (integers as int64),
// structured values as maps and lists, anything else as its text.
func pgValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64, int64, map[string]any:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pgValue(e)
		}
		return out
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case float32:
		return float64(x)
	case pgtype.Numeric:
		f, err := x.Float64Value()
		if err != nil || !f.Valid {
			return nil
		}
		return f.Float64
	case []byte:
		return string(x)
	case [16]byte:
		return pgtype.UUID{Bytes: x, Valid: true}.String()
	case netip.Prefix:
		return x.String()
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// Scan yields every row of a table oldest first.
func (t *pgTables) Scan(ctx context.Context, table string) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		pt, err := t.table(ctx, table)
		if err != nil {
			yield(nil, err)
			return
		}
		rows, err := t.s.pool.Query(ctx, "SELECT "+pt.sel+" FROM "+pt.name+" ORDER BY tsp, "+qi(seqColumn))
		if err != nil {
			yield(nil, err)
			return
		}
		defer rows.Close()
		all := make([]int, len(pt.cols))
		for i := range all {
			all[i] = i
		}
		for rows.Next() {
			vs, err := rows.Values()
			if err != nil {
				yield(nil, err)
				return
			}
			row := make([]any, len(vs))
			for i := range vs {
				if row[i], err = storedValue(pt.ts.Columns[i].Type, vs[i]); err != nil {
					yield(nil, err)
					return
				}
			}
			if !yield(row, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Count returns how many rows a table holds.
func (t *pgTables) Count(ctx context.Context, table string) (int64, error) {
	pt, err := t.table(ctx, table)
	if err != nil {
		return 0, err
	}
	var n int64
	err = t.s.pool.QueryRow(ctx, "SELECT count(*) FROM "+pt.name).Scan(&n)
	return n, err
}

// Span returns the tsp of the oldest and newest row of a table.
func (t *pgTables) Span(ctx context.Context, table string) (oldest, newest int64, ok bool, err error) {
	pt, err := t.table(ctx, table)
	if err != nil {
		return 0, 0, false, err
	}
	var lo, hi *time.Time
	if err := t.s.pool.QueryRow(ctx, "SELECT min(tsp), max(tsp) FROM "+pt.name).Scan(&lo, &hi); err != nil {
		return 0, 0, false, err
	}
	if lo == nil {
		return 0, 0, false, nil
	}
	return lo.UnixMilli(), hi.UnixMilli(), true, nil
}
