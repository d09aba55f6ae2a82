// This file holds the transforms of the PostgreSQL store (postgres.go):
// each data.transforms[] entry is a view of the realm's schema, a
// materialized one when it says materialize (computed when made, then
// refreshed by RefreshTransform on its schedule), made at Open with the
// schema on the search path, so that the template's SQL names the tables
// by their template names. Without TimescaleDB the schema has its own
// time_bucket, built on date_bin. A transform whose SQL fails is refused
// with PostgreSQL's message and where in the SQL it points. It serves no
// URI.
//
// Names resolve when the view is made: PostgreSQL binds a view to the
// tables (and functions) it names then, so the search path matters only
// at Open. Transforms are made in template order; one may read one
// declared before it.

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// dropViews drops the realm's views: they are made again from the
// template.
func (t *pgTables) dropViews(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('v', 'm')`, t.schema)
	if err != nil {
		return err
	}
	type rel struct {
		name string
		kind byte
	}
	var rels []rel
	for rows.Next() {
		var r rel
		var kind string
		if err := rows.Scan(&r.name, &kind); err != nil {
			return err
		}
		r.kind = kind[0]
		rels = append(rels, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range rels {
		what := "VIEW"
		if r.kind == 'm' {
			what = "MATERIALIZED VIEW"
		}
		if _, err := tx.Exec(ctx, "DROP "+what+" IF EXISTS "+t.qualified(r.name)+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}

// timeBucket makes time_bucket in the realm's schema when TimescaleDB
// does not provide it (timeBucketSQL).
func (t *pgTables) timeBucket(ctx context.Context, tx pgx.Tx) error {
	if t.s.tsdb != nil {
		return nil
	}
	_, err := tx.Exec(ctx, timeBucketSQL(qi(t.schema)))
	return err
}

// timeBucketSQL returns the statements that make time_bucket in schema s
// (quoted), in every form TimescaleDB 2.23 has, with its answers (checked
// against it by TestTimescaleOracle): (width, timestamptz) and (width,
// timestamp), each with an origin or an offset, and (width, timestamptz,
// time zone [, origin] [, offset]). A width below a month is a fixed
// length (a day is 24 hours) counted from the origin, by default
// 2000-01-03 (a Monday); a width in months (which may have no days or
// times) counts calendar months from the origin's month, by default
// January 2000. Without a time zone, timestamptz is bucketed in UTC; with
// one, in that zone's local time. An offset shifts the buckets:
// time_bucket(w, ts - offset) + offset. It makes TimescaleDB's first and
// last too: first(value, time) is the value of the row with the earliest
// time (the first such row, NULL times skipped), last(value, time) that of
// the latest.
func timeBucketSQL(s string) string {
	return strings.ReplaceAll(`
CREATE OR REPLACE FUNCTION S.ifl_bucket(bucket_width interval, ts timestamp, origin timestamp) RETURNS timestamp
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
	m int := (date_part('year', bucket_width) * 12 + date_part('month', bucket_width))::int;
	w numeric; d numeric;
BEGIN
	IF ts IS NULL OR bucket_width IS NULL THEN RETURN NULL; END IF;
	IF m <> 0 THEN
		IF date_part('day', bucket_width) <> 0 OR date_part('epoch', bucket_width) <> date_part('epoch', make_interval(months => m)) THEN
			RAISE EXCEPTION 'time_bucket: a width in months cannot have days or times: %', bucket_width USING ERRCODE = '22023';
		END IF;
		IF m < 0 THEN
			RAISE EXCEPTION 'time_bucket: the width must be positive: %', bucket_width USING ERRCODE = '22023';
		END IF;
		origin := date_trunc('month', coalesce(origin, TIMESTAMP '2000-01-01'));
		d := (date_part('year', ts) - date_part('year', origin)) * 12 + date_part('month', ts) - date_part('month', origin);
		RETURN origin + make_interval(months => (floor(d / m) * m)::int);
	END IF;
	w := date_part('epoch', bucket_width)::numeric * 1000000;
	IF w <= 0 THEN
		RAISE EXCEPTION 'time_bucket: the width must be positive: %', bucket_width USING ERRCODE = '22023';
	END IF;
	origin := coalesce(origin, TIMESTAMP '2000-01-03');
	d := date_part('epoch', ts - origin)::numeric * 1000000;
	RETURN origin + make_interval(secs => floor(d / w) * w / 1000000);
END $$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT S.ifl_bucket(bucket_width, ts AT TIME ZONE 'UTC', NULL) AT TIME ZONE 'UTC'
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamp) RETURNS timestamp
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT S.ifl_bucket(bucket_width, ts, NULL)
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamptz, origin timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT S.ifl_bucket(bucket_width, ts AT TIME ZONE 'UTC', origin AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamp, origin timestamp) RETURNS timestamp
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT S.ifl_bucket(bucket_width, ts, origin)
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamptz, "offset" interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT (S.ifl_bucket(bucket_width, (ts AT TIME ZONE 'UTC') - "offset", NULL) + "offset") AT TIME ZONE 'UTC'
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamp, "offset" interval) RETURNS timestamp
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT S.ifl_bucket(bucket_width, ts - "offset", NULL) + "offset"
$$;
CREATE OR REPLACE FUNCTION S.time_bucket(bucket_width interval, ts timestamptz, timezone text,
	origin timestamptz DEFAULT NULL, "offset" interval DEFAULT NULL) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT (S.ifl_bucket(bucket_width, (ts AT TIME ZONE timezone) - coalesce("offset", INTERVAL '0'), origin AT TIME ZONE timezone)
		+ coalesce("offset", INTERVAL '0')) AT TIME ZONE timezone
$$;
CREATE OR REPLACE FUNCTION S.ifl_first_step(state jsonb, value anyelement, "time" timestamptz) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN "time" IS NULL THEN state
		WHEN state IS NULL OR "time" < (state->>'t')::timestamptz THEN jsonb_build_object('t', "time", 'v', value::text)
		ELSE state END
$$;
CREATE OR REPLACE FUNCTION S.ifl_last_step(state jsonb, value anyelement, "time" timestamptz) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN "time" IS NULL THEN state
		WHEN state IS NULL OR "time" > (state->>'t')::timestamptz THEN jsonb_build_object('t', "time", 'v', value::text)
		ELSE state END
$$;
CREATE OR REPLACE FUNCTION S.ifl_pick_final(state jsonb, value anyelement, "time" timestamptz) RETURNS anyelement
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE r ALIAS FOR $0;
BEGIN
	r := state->>'v';
	RETURN r;
END $$;
CREATE OR REPLACE AGGREGATE S.first(anyelement, timestamptz) (
	SFUNC = S.ifl_first_step, STYPE = jsonb, FINALFUNC = S.ifl_pick_final, FINALFUNC_EXTRA);
CREATE OR REPLACE AGGREGATE S.last(anyelement, timestamptz) (
	SFUNC = S.ifl_last_step, STYPE = jsonb, FINALFUNC = S.ifl_pick_final, FINALFUNC_EXTRA);`, "S.", s+".")
}

// searchPath is the search path a transform's SQL is made under: the
// realm's schema, then TimescaleDB's.
func (t *pgTables) searchPath() string {
	p := qi(t.schema)
	if t.s.tsdb != nil {
		p += ", " + qi(t.s.tsdb.schema)
	}
	return p
}

// createViews makes the transforms' views in template order.
func (t *pgTables) createViews(ctx context.Context, tx pgx.Tx) error {
	if len(t.sc.Transforms) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+t.searchPath()); err != nil {
		return err
	}
	for _, v := range t.sc.Transforms {
		if err := t.createView(ctx, tx, v); err != nil {
			return err
		}
	}
	_, err := tx.Exec(ctx, "SET LOCAL search_path TO DEFAULT")
	return err
}

// createView makes one transform's view and checks that it has the
// declared columns.
func (t *pgTables) createView(ctx context.Context, tx pgx.Tx, v *store.TransformSchema) error {
	kind := "VIEW"
	if v.Def.Materialize {
		kind = "MATERIALIZED VIEW"
	}
	head := "CREATE " + kind + " " + t.qualified(v.Name) + " AS "
	sql := strings.TrimSpace(v.Def.SQL)
	if err := execOne(ctx, tx, head+sql); err != nil {
		return fmt.Errorf("transform %q: %s", v.Name, sqlFailure(err, sql, utf8.RuneCountInString(head)))
	}
	cols, err := columnsOf(ctx, tx, t.qualified(v.Name))
	if err != nil {
		return err
	}
	var missing []string
	for _, c := range v.Columns {
		if _, ok := cols[c.ID]; !ok {
			missing = append(missing, fmt.Sprintf("%q", c.ID))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("transform %q: its SQL gives no column %s, which its columns declare", v.Name, strings.Join(missing, ", "))
	}
	return nil
}

// execOne runs one statement with the extended protocol, which refuses
// a list of statements (pgx's Exec without arguments would send it as a
// simple query, running every statement of the list).
func execOne(ctx context.Context, tx pgx.Tx, sql string) error {
	rows, err := tx.Query(ctx, sql, pgx.QueryExecModeExec)
	if err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// sqlFailure describes a failure of the SQL of a transform: PostgreSQL's
// message, its SQLSTATE, and the line and column in sql it points at
// (skip: the characters of the statement before sql).
func sqlFailure(err error, sql string, skip int) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	msg := pe.Message + " (SQLSTATE " + pe.Code + ")"
	if pe.Position > 0 {
		pos := int(pe.Position) - skip // 1-based, in characters
		line, col := 1, 1
		for i, r := range []rune(sql) {
			if i == pos-1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		msg += fmt.Sprintf(" at line %d, column %d of its SQL (position %d)", line, col, pos)
	}
	if pe.Detail != "" {
		msg += "; " + pe.Detail
	}
	if pe.Hint != "" {
		msg += "; hint: " + pe.Hint
	}
	return msg
}

// ReadTransform returns the rows of a transform a query selects, in the
// view's order.
func (t *pgTables) ReadTransform(ctx context.Context, transform string, q *store.TransformQuery) ([]map[string]any, error) {
	v, err := t.view(ctx, transform)
	if err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		return nil, nil
	}
	var args sqlArgs
	f := &pgFilter{args: &args, cols: v.Columns, meta: qi(t.s.meta), fold: t.s.fold, col: func(i int) string {
		c := v.Columns[i]
		x := "(" + qi(c.ID) + ")::" + pgType(c.Type)
		if pgType(c.Type) == "text" {
			x = "(" + x + " COLLATE \"C\")"
		}
		return x
	}}
	stmt := "SELECT * FROM " + t.qualified(v.Name) + " WHERE " + f.sql(q.Filter)
	if q.Offset > 0 {
		stmt += " OFFSET " + args.add(q.Offset)
	}
	stmt += " LIMIT " + args.add(q.Limit)
	rows, err := t.s.pool.Query(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	declared := map[string]int{}
	for i, c := range v.Columns {
		declared[c.ID] = i
	}
	var out []map[string]any
	for rows.Next() {
		vs, err := rows.Values()
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(vs))
		for j, fd := range fields {
			i, ok := declared[fd.Name]
			if !ok {
				m[fd.Name] = store.JSONValue(pgValue(vs[j]))
				continue
			}
			x := vs[j]
			if _, isTime := x.(time.Time); !isTime {
				x = pgValue(x)
			}
			sv, code := store.StoreValue(v.Columns[i].Type, x)
			if code != "" {
				return nil, &store.SQLError{Code: code, Msg: fmt.Sprintf("transform %q: column %q: the view gives %v", v.Name, fd.Name, x)}
			}
			m[fd.Name] = sv
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetTransformRows refuses: the store computes transforms from their SQL.
func (t *pgTables) SetTransformRows(ctx context.Context, transform string, _ []map[string]any) error {
	if _, err := t.view(ctx, transform); err != nil {
		return err
	}
	return fmt.Errorf("postgres store: transform %q is computed from its SQL, its rows cannot be set: %w", transform, store.ErrNotSupported)
}

// RefreshTransform recomputes a materialized transform; a plain view is
// computed on every read.
func (t *pgTables) RefreshTransform(ctx context.Context, transform string) error {
	v, err := t.view(ctx, transform)
	if err != nil {
		return err
	}
	if !v.Def.Materialize {
		return nil
	}
	if _, err = t.s.pool.Exec(ctx, "REFRESH MATERIALIZED VIEW "+t.qualified(v.Name)); err != nil {
		return err
	}
	t.noteRefreshed(time.Now(), v.Name) // refresh.go
	return nil
}
