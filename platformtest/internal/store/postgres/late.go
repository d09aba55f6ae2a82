// This file holds how the PostgreSQL store counts late rows into
// <tablename>_ds (knobs.go) again, as a continuous aggregate's
// refresh does with TimescaleDB's invalidation log: a trigger on the
// table notes, per statement that inserts rows, the time range of the rows
// that fall into a bucket already downsampled (older than the newest
// downsampled bucket's end) in the store's table ifl_ds_late; the next
// Maintain takes the notes and computes those buckets again from the
// table's rows, but only buckets whose rows are all still kept (none older
// than the retention's cutoff), so that a bucket never loses the counts of
// rows dropped since. Until then reads show the bucket as it was
// (materialized only). It serves no URI.

package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// lateTrigger names the trigger on a downsampled table's source.
const lateTrigger = "ifl_ds_late"

// ensureLate makes the late-row notes' table, its trigger function and
// the trigger on table (qualified), whose downsampled table is d; with d
// nil it drops the trigger when there is one.
func (t *pgTables) ensureLate(ctx context.Context, tx pgx.Tx, table string, d *dsTable) error {
	if d == nil {
		var has bool
		err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2)",
			table, lateTrigger).Scan(&has)
		if err != nil || !has {
			return err
		}
		_, err = tx.Exec(ctx, "DROP TRIGGER "+qi(lateTrigger)+" ON "+table)
		return err
	}
	meta := qi(t.s.meta)
	// The store's schema is shared by the realms: one setup at a time.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", t.s.meta); err != nil {
		return err
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regproc($1) IS NOT NULL", t.s.meta+".ifl_ds_late_note").Scan(&exists); err != nil {
		return err
	}
	stmts := []string{"CREATE TABLE IF NOT EXISTS " + meta + ".ifl_ds_late (tbl text NOT NULL, lo timestamptz NOT NULL, hi timestamptz NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + meta + ".ifl_ds_kept (tbl text PRIMARY KEY, since timestamptz NOT NULL)"}
	if !exists {
		// args: the downsampled table (qualified), its bucket, the table
		// (qualified, the notes' key). The rows of new_rows older than the
		// end of the newest downsampled bucket are late.
		stmts = append(stmts, `CREATE FUNCTION `+meta+`.ifl_ds_late_note() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
	IF to_regclass(TG_ARGV[0]) IS NOT NULL THEN
		EXECUTE format('INSERT INTO `+strings.ReplaceAll(meta, "'", "''")+`.ifl_ds_late (tbl, lo, hi) SELECT $1, min(tsp), max(tsp) FROM new_rows
			WHERE tsp < (SELECT max(tsp) + $2::interval FROM %s) HAVING count(*) > 0', TG_ARGV[0])
			USING TG_ARGV[2], TG_ARGV[1];
	END IF;
	RETURN NULL;
END $f$`)
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("late rows: %.60s: %w", q, err)
		}
	}
	trigger := "CREATE OR REPLACE TRIGGER " + qi(lateTrigger) + " AFTER INSERT ON " + table +
		" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION " + meta + ".ifl_ds_late_note(" + ql(d.name) + ", " + ql(d.bucket) + ", " + ql(table) + ")"
	if t.s.tsdb == nil {
		_, err := tx.Exec(ctx, trigger)
		return err
	}
	// TimescaleDB 2.23 takes it on a hypertable; an older one may refuse
	// transition tables there: late rows are then not counted again
	// (a savepoint keeps the migration going).
	if err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { _, err := sp.Exec(ctx, trigger); return err }); err != nil {
		t.s.log.Warn("postgres: late rows into downsampled buckets will not be counted again", "table", table, "err", err)
	}
	return nil
}

// recountLate takes the notes of late rows into the table pt and computes
// their buckets in d again from its rows: the buckets from the oldest
// late row's to the newest's that are downsampled already and, when the
// table has a retention (cutoff, this run's), start no earlier than the
// rows it kept when it last dropped rows (ifl_ds_kept; none when it never
// did), so that all their rows are there.
func (t *pgTables) recountLate(ctx context.Context, tx pgx.Tx, pt *pgTable, d *dsTable, cutoff *time.Time) error {
	var lo, hi *time.Time
	err := tx.QueryRow(ctx, "WITH l AS (DELETE FROM "+qi(t.s.meta)+".ifl_ds_late WHERE tbl = $1 RETURNING lo, hi) SELECT min(lo), max(hi) FROM l",
		pt.name).Scan(&lo, &hi)
	if err != nil || lo == nil {
		return err
	}
	if cutoff != nil {
		cutoff = nil
		err := tx.QueryRow(ctx, "SELECT (SELECT since FROM "+qi(t.s.meta)+".ifl_ds_kept WHERE tbl = $1)", pt.name).Scan(&cutoff)
		if err != nil {
			return err
		}
	}
	bucket := t.bucketFunc()
	// $1 the bucket width, $2 the oldest late row, $3 the newest, $4 the
	// cutoff.
	from := bucket + "($1::interval, $2::timestamptz)"
	args := []any{d.bucket, *lo, *hi}
	if cutoff != nil {
		first := bucket + "($1::interval, $4::timestamptz)"
		from = "greatest(" + from + ", CASE WHEN " + first + " = $4::timestamptz THEN " + first + " ELSE " + first + " + $1::interval END)"
		args = append(args, *cutoff)
	}
	to := "least(" + bucket + "($1::interval, $3::timestamptz) + $1::interval, (SELECT max(tsp) + $1::interval FROM " + d.name + "))"
	win := "WITH w AS (SELECT " + from + " AS lo, " + to + " AS hi) "
	if _, err := tx.Exec(ctx, win+"DELETE FROM "+d.name+" USING w WHERE tsp >= w.lo AND tsp < w.hi", args...); err != nil {
		return fmt.Errorf("recount late rows: %w", err)
	}
	agg := t.aggregate(d, "$1::interval")
	stmt := win + "INSERT INTO " + d.name + " (" + strings.Join(agg.names, ", ") + ") SELECT " + strings.Join(agg.sel, ", ") +
		" FROM " + pt.name + ", w WHERE tsp >= w.lo AND tsp < w.hi GROUP BY " + strings.Join(agg.group, ", ")
	if _, err := tx.Exec(ctx, stmt, args...); err != nil {
		return fmt.Errorf("recount late rows: %w", err)
	}
	return nil
}

// noteKept records that the retention dropped rows of table pt and kept
// those from since on (recountLate's bound).
func (t *pgTables) noteKept(ctx context.Context, tx pgx.Tx, pt *pgTable, since time.Time) error {
	_, err := tx.Exec(ctx, "INSERT INTO "+qi(t.s.meta)+".ifl_ds_kept (tbl, since) VALUES ($1, $2) "+
		"ON CONFLICT (tbl) DO UPDATE SET since = greatest(ifl_ds_kept.since, excluded.since)", pt.name, since)
	return err
}
