// This file holds the platform knobs of the data template that the
// PostgreSQL store (postgres.go) applies itself, when the DB's scheduler
// calls Maintain (schedule.go): dropAfter (retention) and downsample
// {bucket, keepFor, paths}. It serves no URI.
//
// Downsampling keeps the table <tablename>_ds: one row per complete
// bucket (time_bucket(bucket, tsp), in tsp), device_key and entity key,
// with rows (how many rows the bucket had) and, per numeric or bigint
// column and per path into a json column listed in paths (cast to
// numeric), <name>_avg, <name>_min, <name>_max and <name>_count (the
// non-null values); a path's name is its keys joined by "_". Each
// Maintain counts again the buckets that got late rows (late.go),
// adds the buckets completed since the last one, then applies dropAfter to
// the table, never to rows whose bucket is not downsampled yet, and
// keepFor to <tablename>_ds. A bucket in months is a calendar
// month. With TimescaleDB the table is the same (not a continuous
// aggregate). dropAfter drops whole chunks, as TimescaleDB does: without
// it the rows of the chunks (chunkTimeInterval, aligned as TimescaleDB
// aligns them) that drop_chunks would drop.
//
// Interval texts ("30 days", "1 hour") are read by PostgreSQL; one it
// cannot read fails Open.

package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// dsSource is a value a downsampled table aggregates.
type dsSource struct {
	name string // the aggregate columns' stem
	expr string // its SQL in the table
	typ  string // the type of min and max
}

// dsTable is the downsampled table of a table.
type dsTable struct {
	name    string // qualified
	bucket  string
	keys    []string // quoted: device_key and the entity key
	sources []dsSource
}

// downsampled returns the downsampled table of a table; nil without
// downsample.
func (t *pgTables) downsampled(ts *store.TableSchema) *dsTable {
	if ts.Def == nil || ts.Def.Downsample == nil {
		return nil
	}
	d := &dsTable{name: t.qualified(objName(ts.Name, "_ds")), bucket: ts.Def.Downsample.Bucket, keys: []string{qi("device_key")}}
	for _, k := range ts.EntityKey {
		if id := ts.Columns[k].ID; id != "device_key" {
			d.keys = append(d.keys, qi(id))
		}
	}
	seen := map[string]bool{}
	for _, c := range ts.Columns {
		if !c.Implicit && (c.Type == template.TypeNumeric || c.Type == template.TypeBigint) {
			seen[c.ID] = true
			d.sources = append(d.sources, dsSource{name: c.ID, expr: qi(c.ID), typ: pgType(c.Type)})
		}
	}
	for _, p := range ts.Def.Downsample.Paths {
		keys, err := template.PathKeys(p)
		if err != nil || len(keys) < 2 {
			continue // a column: numeric ones are in already
		}
		i := slices.IndexFunc(ts.Columns, func(c store.Column) bool { return c.ID == keys[0] })
		name := strings.Join(keys, "_")
		if i < 0 || ts.Columns[i].Type != template.TypeJSON || seen[name] {
			continue
		}
		seen[name] = true
		d.sources = append(d.sources, dsSource{name: name, typ: "double precision",
			expr: qi(t.s.meta) + ".ifl_cast_numeric(" + jsonPathSQL(qi(keys[0]), keys[1:]) + ")"})
	}
	return d
}

// columns returns the downsampled table's columns with their types.
func (d *dsTable) columns(ts *store.TableSchema) [][2]string {
	cols := [][2]string{{qi("tsp"), "timestamp with time zone NOT NULL"}}
	for _, k := range d.keys {
		typ := "bigint"
		for _, c := range ts.Columns {
			if qi(c.ID) == k {
				typ = pgType(c.Type)
				if c.Type == template.TypeString {
					typ += ` COLLATE "C"`
				}
			}
		}
		cols = append(cols, [2]string{k, typ})
	}
	cols = append(cols, [2]string{qi("rows"), "bigint"})
	for _, s := range d.sources {
		cols = append(cols, [2]string{qi(s.name + "_avg"), "double precision"}, [2]string{qi(s.name + "_min"), s.typ},
			[2]string{qi(s.name + "_max"), s.typ}, [2]string{qi(s.name + "_count"), "bigint"})
	}
	return cols
}

// ensureDownsample makes the downsampled table of a table, or adds the
// columns of new sources; a changed bucket is refused unless AllowDrop
// (which empties the table).
func (t *pgTables) ensureDownsample(ctx context.Context, tx pgx.Tx, ts *store.TableSchema) error {
	d := t.downsampled(ts)
	if d == nil {
		return t.ensureLate(ctx, tx, t.tables[ts.Name].name, nil) // late.go
	}
	if t.tables[objName(ts.Name, "_ds")] != nil {
		return fmt.Errorf("the table %s_ds that downsample keeps is declared in the template too", ts.Name)
	}
	var ok bool
	if err := tx.QueryRow(ctx, "SELECT $1::interval > '0'::interval", d.bucket).Scan(&ok); err != nil || !ok {
		return fmt.Errorf("bucket %q is not a positive interval PostgreSQL reads (%v)", d.bucket, err)
	}
	for _, iv := range []string{ts.Def.Downsample.KeepFor, ts.Def.DropAfter} {
		if iv != "" {
			if _, err := tx.Exec(ctx, "SELECT $1::interval", iv); err != nil {
				return fmt.Errorf("interval %q: %w", iv, err)
			}
		}
	}
	comment := "downsample of " + ts.Name + ", bucket " + d.bucket
	existing, err := columnsOf(ctx, tx, d.name)
	if err != nil {
		return err
	}
	var stmts []string
	if existing == nil {
		var defs []string
		for _, c := range d.columns(ts) {
			defs = append(defs, c[0]+" "+c[1])
		}
		stmts = append(stmts, "CREATE TABLE "+d.name+" ("+strings.Join(defs, ", ")+")",
			"CREATE INDEX "+qi(objName(ts.Name, "_ds_tsp"))+" ON "+d.name+" (tsp)")
	} else {
		var old string
		if err := tx.QueryRow(ctx, "SELECT coalesce(obj_description(to_regclass($1), 'pg_class'), '')", d.name).Scan(&old); err != nil {
			return err
		}
		if old != comment {
			if !t.allowDrop() {
				return fmt.Errorf("%s_ds holds buckets of another width (%s); the migration would empty it, so it is refused (allow it with flockd -allow-drop, platformtest.PostgresAllowDrop)", ts.Name, strings.TrimPrefix(old, "downsample of "+ts.Name+", "))
			}
			stmts = append(stmts, "TRUNCATE "+d.name)
		}
		for _, c := range d.columns(ts) {
			stmts = append(stmts, "ALTER TABLE "+d.name+" ADD COLUMN IF NOT EXISTS "+c[0]+" "+strings.TrimSuffix(c[1], " NOT NULL"))
		}
	}
	stmts = append(stmts, "COMMENT ON TABLE "+d.name+" IS "+ql(comment))
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return t.ensureLate(ctx, tx, t.tables[ts.Name].name, d) // late.go
}

// Maintain applies downsampling and retention as of now (epoch
// milliseconds), table by table, each in a transaction of its own.
func (t *pgTables) Maintain(ctx context.Context, now int64) error {
	at := time.UnixMilli(now).UTC()
	for _, ts := range t.sc.Tables {
		if ts.Def == nil || (ts.Def.DropAfter == "" && ts.Def.Downsample == nil) {
			continue
		}
		err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error { return t.maintain(ctx, tx, ts, at) })
		if err != nil {
			return fmt.Errorf("maintain %q: %w", ts.Name, err)
		}
	}
	return nil
}

// defaultChunkInterval is TimescaleDB's chunk_time_interval when the
// template gives no chunkTimeInterval.
const defaultChunkInterval = "7 days"

// chunkStartSQL is the start of the chunk that holds the timestamptz x
// with chunks of the interval iv, as TimescaleDB lays out a timestamptz
// column's chunks: aligned to the Unix epoch, an interval's month counted
// as 30 days (a year as 360); NULL unless iv is positive.
func chunkStartSQL(x, iv string) string {
	us := "(extract(epoch from " + iv + ") * 1000000 - extract(year from " + iv + ") * 453600000000)" // 5.25 days a year
	return "CASE WHEN " + us + " > 0 THEN 'epoch'::timestamptz + (floor(extract(epoch from " + x + ") * 1000000 / " + us + ") * " +
		us + ")::bigint * interval '1 microsecond' END"
}

// maintain downsamples a table's completed buckets and counts again those
// that got late rows (late.go), then drops its rows older than
// dropAfter (but those not downsampled yet) as TimescaleDB does, by whole
// chunks (chunkTimeInterval, by default 7 days): a row goes once all of
// its chunk is older than dropAfter; and it drops the downsampled rows
// older than keepFor.
func (t *pgTables) maintain(ctx context.Context, tx pgx.Tx, ts *store.TableSchema, now time.Time) error {
	pt := t.tables[ts.Name]
	bucket := t.bucketFunc()
	d := t.downsampled(ts)
	// The retention's cutoff: the start of the oldest chunk it keeps.
	var cutoff *time.Time
	if ts.Def.DropAfter != "" {
		chunk := cmp.Or(ts.Def.ChunkTimeInterval, defaultChunkInterval)
		oldest := "$1::timestamptz - $2::interval"
		args := []any{now, ts.Def.DropAfter, chunk}
		if d != nil { // rows of a bucket not downsampled yet stay
			oldest = "least($1::timestamptz - $2::interval, " + bucket + "($4::interval, $1::timestamptz))"
			args = append(args, d.bucket)
		}
		if err := tx.QueryRow(ctx, "SELECT "+chunkStartSQL(oldest, "$3::interval"), args...).Scan(&cutoff); err != nil {
			return fmt.Errorf("dropAfter %q, chunkTimeInterval %q: %w", ts.Def.DropAfter, chunk, err)
		}
		if cutoff == nil {
			return fmt.Errorf("chunkTimeInterval %q is not a positive interval", chunk)
		}
	}
	if d != nil {
		if err := t.recountLate(ctx, tx, pt, d, cutoff); err != nil { // late.go
			return err
		}
		agg := t.aggregate(d, "$2::interval")
		stmt := "WITH w AS (SELECT coalesce((SELECT max(tsp) + $2::interval FROM " + d.name + "), (SELECT " + bucket + "($2::interval, min(tsp)) FROM " + pt.name + ")) AS lo, " +
			bucket + "($2::interval, $1::timestamptz) AS hi) " +
			"INSERT INTO " + d.name + " (" + strings.Join(agg.names, ", ") + ") SELECT " + strings.Join(agg.sel, ", ") +
			" FROM " + pt.name + ", w WHERE tsp >= w.lo AND tsp < w.hi GROUP BY " + strings.Join(agg.group, ", ")
		if _, err := tx.Exec(ctx, stmt, now, d.bucket); err != nil {
			return fmt.Errorf("downsample: %w", err)
		}
		if keep := ts.Def.Downsample.KeepFor; keep != "" {
			if _, err := tx.Exec(ctx, "DELETE FROM "+d.name+" WHERE tsp < $1::timestamptz - $2::interval", now, keep); err != nil {
				return fmt.Errorf("keepFor: %w", err)
			}
		}
	}
	if cutoff == nil {
		return nil
	}
	tag, err := tx.Exec(ctx, t.s.retentionSQL(pt), *cutoff)
	if err != nil {
		return fmt.Errorf("dropAfter: %w", err)
	}
	if d != nil && tag.RowsAffected() > 0 { // rows (chunks) dropped
		return t.noteKept(ctx, tx, pt, *cutoff) // late.go
	}
	return nil
}

// dsAggregate is the SELECT that computes downsampled rows from a
// table's rows: its expressions, the downsampled table's columns they
// fill, and the GROUP BY.
type dsAggregate struct{ sel, names, group []string }

// aggregate returns the SELECT of d's rows with the bucket width at the
// parameter iv ("$2::interval").
func (t *pgTables) aggregate(d *dsTable, iv string) dsAggregate {
	a := dsAggregate{sel: []string{t.bucketFunc() + "(" + iv + ", tsp)"}, names: []string{qi("tsp")}, group: []string{"1"}}
	for i, k := range d.keys {
		a.sel, a.names = append(a.sel, k), append(a.names, k)
		a.group = append(a.group, fmt.Sprint(i+2))
	}
	a.sel, a.names = append(a.sel, "count(*)"), append(a.names, qi("rows"))
	for _, s := range d.sources {
		a.sel = append(a.sel, avgSQL(s.expr), "min("+s.expr+")", "max("+s.expr+")", "count("+s.expr+")")
		a.names = append(a.names, qi(s.name+"_avg"), qi(s.name+"_min"), qi(s.name+"_max"), qi(s.name+"_count"))
	}
	return a
}
