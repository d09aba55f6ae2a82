// This file holds the series reads of the PostgreSQL store (postgres.go):
// a store.SeriesQuery (query.go) as one aggregate statement, with the reference
// semantics of SeriesBuilder (series_agg.go). It serves no URI.
//
//	SELECT date_bin(width, tsp, start), <groupBy…>, <metric…>
//	FROM <table> WHERE start ≤ tsp < end AND filter
//	GROUP BY 1, 2, … LIMIT MaxGroups + 1
//
// Metrics: COUNT counts non-null values (a JSON null at a path is
// null); AVG the sum of double precision over the count (bigint read as double precision, as
// the reference adds float64); SUM of a bigint column exact; MIN and MAX
// in the column's order (text byte-wise); a path cast to numeric for
// AVG, SUM, MIN and MAX by ifl_cast_numeric (22P02 for a value that is no
// number); FIRST and LAST the value of the oldest and newest row by (tsp,
// _seq), even a NULL.

package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// Series returns the groups of a store.SeriesQuery.
func (t *pgTables) Series(ctx context.Context, table string, q *store.SeriesQuery) ([]store.SeriesGroup, error) {
	pt, err := t.table(ctx, table)
	if err != nil {
		return nil, err
	}
	stmt, args, err := t.seriesSQL(pt, q)
	if err != nil {
		return nil, err
	}
	rows, err := t.s.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.SeriesGroup
	for rows.Next() {
		if len(out) == q.MaxGroups {
			return nil, store.ErrTooManyGroups
		}
		vs, err := rows.Values()
		if err != nil {
			return nil, err
		}
		g := store.SeriesGroup{Bucket: vs[0].(time.Time).UnixMilli(), Values: make([]any, len(q.Metrics))}
		if len(q.GroupBy) > 0 {
			g.Keys = make([]any, len(q.GroupBy))
			for i, r := range q.GroupBy {
				if g.Keys[i], err = refValue(pt, r, vs[1+i]); err != nil {
					return nil, err
				}
			}
		}
		for i, m := range q.Metrics {
			if g.Values[i], err = metricValue(pt, &m, vs[1+len(q.GroupBy)+i]); err != nil {
				return nil, err
			}
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// seriesSQL returns the statement of a series read and its arguments.
func (t *pgTables) seriesSQL(pt *pgTable, q *store.SeriesQuery) (string, sqlArgs, error) {
	var args sqlArgs
	f := t.filter(pt, &args)
	meta := qi(t.s.meta)
	// value is a ref's value: a column, or the value at a path (NULL for
	// a JSON null).
	value := func(r store.SeriesRef) string {
		if r.Path == nil {
			return qi(pt.cols[r.Col])
		}
		return "nullif(" + jsonPathSQL(qi(pt.cols[r.Col]), r.Path) + ", 'null'::jsonb)"
	}
	sel := []string{"date_bin(" + args.add(time.Duration(q.Width)*time.Millisecond) + "::interval, tsp, " +
		args.add(time.UnixMilli(q.Start).UTC()) + "::timestamptz)"}
	groups := []string{"1"}
	for i, g := range q.GroupBy {
		sel = append(sel, value(g))
		groups = append(groups, strconv.Itoa(i+2))
	}
	for _, m := range q.Metrics {
		v := value(m.SeriesRef)
		if m.Numeric {
			v = meta + ".ifl_cast_numeric(" + v + ")"
		}
		typ := pt.ts.Columns[m.Col].Type
		switch m.Method {
		case "COUNT":
			v = "count(" + v + ")"
		case "AVG":
			v = avgSQL(v)
		case "SUM":
			if typ == template.TypeBigint && m.Path == nil {
				v = "sum(" + v + ")::bigint"
			} else {
				v = "sum(" + v + ")"
			}
		case "MIN", "MAX":
			v = strings.ToLower(m.Method) + "(" + v + ")"
		case "FIRST":
			v = "(array_agg(" + v + " ORDER BY tsp, " + qi(seqColumn) + "))[1]"
		case "LAST":
			v = "(array_agg(" + v + " ORDER BY " + order + "))[1]"
		default:
			return "", nil, fmt.Errorf("postgres store: unknown series method %q", m.Method)
		}
		sel = append(sel, v)
	}
	where := rangeSQL(&args, store.Bound{Set: true, Ms: q.Start}, store.Bound{Set: true, Ms: q.End}) + " AND " + f.sql(q.Filter)
	stmt := "SELECT " + strings.Join(sel, ", ") + " FROM " + pt.name + " WHERE " + where +
		" GROUP BY " + strings.Join(groups, ", ") + " LIMIT " + args.add(int64(q.MaxGroups)+1)
	return stmt, args, nil
}

// avgSQL is the average of the non-null values of v as the reference
// computes it: their sum over their count (PostgreSQL's avg of double
// precision also sums the squares, which overflow long before the sum).
func avgSQL(v string) string {
	return "(sum((" + v + ")::double precision) / nullif(count(" + v + "), 0))"
}

// refValue converts the value of a ref to its stored form.
func refValue(pt *pgTable, r store.SeriesRef, v any) (any, error) {
	if r.Path != nil {
		return v, nil // decoded jsonb
	}
	return storedValue(pt.ts.Columns[r.Col].Type, v)
}

// metricValue converts an aggregate to the form store.SeriesGroup describes.
func metricValue(pt *pgTable, m *store.SeriesMetric, v any) (any, error) {
	switch m.Method {
	case "COUNT", "AVG":
		return v, nil
	case "FIRST", "LAST":
		return refValue(pt, m.SeriesRef, v)
	}
	if m.Numeric || v == nil {
		return v, nil
	}
	if n, ok := v.(pgtype.Numeric); ok {
		f, err := n.Float64Value()
		return f.Float64, err
	}
	return storedValue(pt.ts.Columns[m.Col].Type, v)
}
