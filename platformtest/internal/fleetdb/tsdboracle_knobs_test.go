package fleetdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
)

// knobsAllowed are the differences of the data template's knobs flockd
// keeps, each documented in docs/postgres.md.
var knobsAllowed []allowedDiff

// retentionAges are the ages of the rows of the retention comparison at
// its "now", around dropAfter 14 days.
var retentionAges = []time.Duration{
	13 * 24 * time.Hour, 14*24*time.Hour - time.Minute, 14 * 24 * time.Hour, 14*24*time.Hour + time.Hour,
	14*24*time.Hour + 9*time.Hour, 14*24*time.Hour + 15*time.Hour, 15*24*time.Hour - time.Minute,
	15 * 24 * time.Hour, 15*24*time.Hour + 10*time.Hour, 17 * 24 * time.Hour, 20 * 24 * time.Hour, 22 * 24 * time.Hour,
}

// retentionNows are the instants the retention comparison runs at: a
// Wednesday (7-day chunks start on Thursdays, as the Unix epoch did), one
// before the epoch, and one 17 days after a chunk of "1 year" (360 days
// to TimescaleDB) begins on 2026-03-08.
var retentionNows = []time.Time{time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), time.Date(1965, 3, 1, 13, 0, 0, 0, time.UTC),
	time.Date(2026, 3, 25, 9, 0, 0, 0, time.UTC)}

// compareRetention stores the same rows in a table with dropAfter 14 days
// on both sides, runs retention at the same instant (flockd's Maintain,
// TimescaleDB's drop_chunks as its retention policy does) and compares
// which rows are kept, whole chunk by whole chunk: with daily chunks, 5
// hours, a month (30 days to TimescaleDB), a year (360 days) and
// TimescaleDB's default of 7 days, at each of retentionNows.
func compareRetention(t *testing.T, o *oracle, ta *tally) {
	pg := unitStore{"postgres", func(tb testing.TB) Store {
		return openScratchPostgres(tb, o.pgURL, postgres.Config{})
	}}
	i := 0
	for _, now := range retentionNows {
		for _, chunk := range []string{"1 day", "5 hours", "1 month", "1 year", ""} {
			i++
			compareRetentionAt(t, o, ta, pg, now, chunk, fmt.Sprintf("kept_%d", i))
		}
	}
}

// compareRetentionAt compares retention at now with chunks of chunk (""
// the default) in the oracle's table.
func compareRetentionAt(t *testing.T, o *oracle, ta *tally, pg unitStore, now time.Time, chunk, table string) {
	ctx := context.Background()
	opt, tsdbChunk := "", "7 days"
	if chunk != "" {
		opt, tsdbChunk = "\n      chunkTimeInterval: "+chunk, chunk
	}
	db, b := newTemplateDB(t, pg, `
data:
  tables:
    - tablename: kept
      dropAfter: 14 days`+opt+`
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: n, dataType: bigint}
`)
	for _, q := range []string{
		"CREATE TABLE " + table + " (tsp timestamptz NOT NULL, n bigint)",
		"SELECT create_hypertable('" + table + "', by_range('tsp', INTERVAL '" + tsdbChunk + "'))",
	} {
		if _, err := o.tsdb.Exec(ctx, q); err != nil {
			t.Fatalf("oracle: %s: %v", q, err)
		}
	}
	for n, age := range retentionAges {
		at := now.Add(-age)
		insert(t, db, "kept", map[string]any{"tsp": at.UnixMilli(), "n": n})
		if _, err := o.tsdb.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", at, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.tsdb.Exec(ctx, "SELECT drop_chunks('"+table+"', older_than => $1::timestamptz - INTERVAL '14 days')", now); err != nil {
		t.Fatal(err)
	}
	if err := b.store.Maintain(ctx, now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	var tsdbKept []int64
	rows, err := o.tsdb.Query(ctx, "SELECT n FROM "+table)
	if err == nil {
		for rows.Next() {
			var n int64
			if err = rows.Scan(&n); err != nil {
				break
			}
			tsdbKept = append(tsdbKept, n)
		}
		rows.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	stored, err := db.TableRows(ctx, unitRealm.Name, "kept")
	if err != nil {
		t.Fatal(err)
	}
	var flockdKept []int64
	for _, r := range stored {
		flockdKept = append(flockdKept, r["n"].(int64))
	}
	state := func(kept []int64, n int) answer {
		if slices.Contains(kept, int64(n)) {
			return answer{val: "kept"}
		}
		return answer{val: "dropped"}
	}
	for n, age := range retentionAges {
		ta.add(oracleCase{topic: "retention", form: "dropAfter 14 days, chunks of " + tsdbChunk + ", now " + now.Format(time.RFC3339),
			input: fmt.Sprintf("row %s old", age), tsdb: state(tsdbKept, n), flockd: state(flockdKept, n)}, knobsAllowed)
	}
}

// dsRows reads a downsampled table (or continuous aggregate) as texts
// keyed by bucket and device, values rounded alike on both sides.
func dsRows(ctx context.Context, c *pgx.Conn, from string) (map[string]string, error) {
	rows, err := c.Query(ctx, `SELECT tsp::text || ' device ' || device_key, concat_ws(' ', "rows",
		round(v_avg::numeric, 6), round(v_min::numeric, 6), round(v_max::numeric, 6), v_count) FROM `+from)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, err
		}
		out[k] = v
	}
	rows.Close()
	return out, rows.Err()
}

// compareDownsample compares downsample {bucket: 1 hour} of a table with
// dropAfter 2 days against a continuous aggregate with its refresh
// policy (end_offset 1 minute: every complete bucket, never the current
// one) and TimescaleDB's retention: the buckets made, that the current
// bucket is left out, that the aggregate is materialized only (rows added
// since do not show), that it survives the retention of raw rows, and that
// late rows into a downsampled bucket count at the next run.
func compareDownsample(t *testing.T, o *oracle, ta *tally) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)
	pg := unitStore{"postgres", func(tb testing.TB) Store { return openScratchPostgres(tb, o.pgURL, postgres.Config{}) }}
	db, b := newTemplateDB(t, pg, `
data:
  tables:
    - tablename: m
      dropAfter: 2 days
      downsample: {bucket: 1 hour}
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: v, dataType: numeric}
`)
	pt, ok := b.store.(interface{ Qualified(string) string })
	if !ok {
		t.Fatalf("the store's tables are %T, not PostgreSQL's", b.store)
	}
	flockdDS := pt.Qualified("m_ds")
	for _, q := range []string{
		"CREATE TABLE m (tsp timestamptz NOT NULL, device_key bigint, v numeric)",
		"SELECT create_hypertable('m', by_range('tsp', INTERVAL '1 day'))",
		`CREATE MATERIALIZED VIEW m_ds WITH (timescaledb.continuous) AS SELECT time_bucket('1 hour', tsp) AS tsp, device_key,
			count(*) AS "rows", avg(v) AS v_avg, min(v) AS v_min, max(v) AS v_max, count(v) AS v_count FROM m GROUP BY 1, 2 WITH NO DATA`,
	} {
		if _, err := o.tsdb.Exec(ctx, q); err != nil {
			t.Fatalf("oracle: %.60s: %v", q, err)
		}
	}
	add := func(at time.Time, dev, v int) {
		t.Helper()
		row := map[string]any{"tsp": at.UnixMilli(), "v": v}
		if err := db.InsertRows(ctx, unitRealm.Name, "m", Writer{DeviceKey: int64(dev), Serial: "s", App: "interop"}, row); err != nil {
			t.Fatal(err)
		}
		if _, err := o.tsdb.Exec(ctx, "INSERT INTO m VALUES ($1, $2, $3)", at, dev, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 * 24 * 6 { // every 10 minutes for 3 days up to now, two devices
		add(now.Add(-time.Duration(i)*10*time.Minute), 42+i%2, i%17)
	}
	// The first run refreshes everything (an aggregate made WITH DATA),
	// the later ones the policy's window: start_offset 1 day (under
	// dropAfter, so that buckets of dropped rows stay), end_offset 1 minute.
	refresh := "CALL refresh_continuous_aggregate('m_ds', NULL, $1::timestamptz - INTERVAL '1 minute')"
	run := func() {
		t.Helper()
		if err := b.store.Maintain(ctx, now.UnixMilli()); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			refresh,
			"SELECT drop_chunks('m', older_than => $1::timestamptz - INTERVAL '2 days')",
		} {
			if _, err := o.tsdb.Exec(ctx, q, now); err != nil {
				t.Fatalf("oracle: %s: %v", q, err)
			}
		}
	}
	compare := func(form string) {
		t.Helper()
		tsdb, err := dsRows(ctx, o.tsdb, "m_ds")
		if err != nil {
			t.Fatal(err)
		}
		flockd, err := dsRows(ctx, o.pg, flockdDS)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		for k := range tsdb {
			keys[k] = true
		}
		for k := range flockd {
			keys[k] = true
		}
		get := func(m map[string]string, k string) answer {
			if v, ok := m[k]; ok {
				return answer{val: v}
			}
			return answer{val: "no bucket"}
		}
		for k := range keys {
			ta.add(oracleCase{topic: "downsample", form: form, input: k, tsdb: get(tsdb, k), flockd: get(flockd, k)}, knobsAllowed)
		}
	}
	run()
	compare("complete buckets after the first run, raw rows past dropAfter gone")
	refresh = "CALL refresh_continuous_aggregate('m_ds', $1::timestamptz - INTERVAL '1 day', $1::timestamptz - INTERVAL '1 minute')"
	// Rows added since are not in the aggregate until the next run: into
	// buckets downsampled already (late rows, inside the policy's window
	// of a day) and into the current one. The next run counts them.
	add(now.Add(-5*time.Hour+time.Minute), 42, 1000)
	add(now.Add(-20*time.Hour+7*time.Minute), 43, -5)
	add(now.Add(-20*time.Hour+9*time.Minute), 43, 7)
	add(now.Add(-time.Minute), 42, 1000)
	compare("materialized only: rows added since the run")
	now = now.Add(time.Hour)
	run()
	compare("the next run, an hour later, with late rows")
}

// compareFirstLast compares first(value, time) and last(value, time) per
// device, on numbers, texts and json, with NULL values and NULL times.
func compareFirstLast(t *testing.T, o *oracle, ta *tally) {
	ctx := context.Background()
	table := o.schema + ".fl"
	create := "CREATE TABLE %s (tsp timestamptz, device_key bigint, v numeric, s text, j jsonb)"
	if _, err := o.pg.Exec(ctx, fmt.Sprintf(create, table)); err != nil {
		t.Fatal(err)
	}
	if _, err := o.tsdb.Exec(ctx, fmt.Sprintf(create, "fl")); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)
	for i := range 60 {
		at := any(base.Add(time.Duration((i*37)%60) * 17 * time.Minute))
		if i%13 == 5 {
			at = nil // a row without time is never first or last
		}
		var v, s, j any = i, fmt.Sprint("row ", i), fmt.Sprintf(`{"i": %d}`, i)
		if i%7 == 3 {
			v, s, j = nil, nil, nil
		}
		for _, side := range []struct {
			c    *pgx.Conn
			name string
		}{{o.pg, table}, {o.tsdb, "fl"}} {
			if _, err := side.c.Exec(ctx, "INSERT INTO "+side.name+" VALUES ($1, $2, $3, $4, $5::jsonb)", at, i%4, v, s, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(c *pgx.Conn, f, from string) (map[string]string, error) {
		rows, err := c.Query(ctx, strings.NewReplacer("F.", f).Replace(`SELECT device_key::text, concat_ws(' | ',
			coalesce(F.first(v, tsp)::text, 'NULL'), coalesce(F.last(v, tsp)::text, 'NULL'),
			coalesce(F.first(s, tsp), 'NULL'), coalesce(F.last(s, tsp), 'NULL'),
			coalesce(F.first(j, tsp)::text, 'NULL'), coalesce(F.last(j, tsp)::text, 'NULL'))
			FROM `+from+` GROUP BY device_key`))
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return nil, err
			}
			out[k] = v
		}
		rows.Close()
		return out, rows.Err()
	}
	tsdb, err := read(o.tsdb, "public.", "fl")
	if err != nil {
		t.Fatal(err)
	}
	flockd, err := read(o.pg, o.schema+".", table)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first/last of device 0 on TimescaleDB: %s", tsdb["0"])
	for dev := range 4 {
		k := fmt.Sprint(dev)
		ta.add(oracleCase{topic: "first/last", form: "numeric, text, jsonb", input: "device " + k,
			tsdb: answer{val: tsdb[k]}, flockd: answer{val: flockd[k]}}, knobsAllowed)
	}
}

// compareLateIntoCompressed writes a late row into a day TimescaleDB has
// compressed (columnstore, columnstoreAfter 7 days): both accept it and
// read it back with the day's other rows.
func compareLateIntoCompressed(t *testing.T, o *oracle, ta *tally) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC)
	pg := unitStore{"postgres", func(tb testing.TB) Store { return openScratchPostgres(tb, o.pgURL, postgres.Config{}) }}
	db, b := newTemplateDB(t, pg, `
data:
  tables:
    - tablename: cc
      chunkTimeInterval: 1 day
      columnstore: true
      columnstoreAfter: 7 days
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: v, dataType: numeric}
`)
	for _, q := range []string{
		"CREATE TABLE cc (tsp timestamptz NOT NULL, device_key bigint, v numeric)",
		"SELECT create_hypertable('cc', by_range('tsp', INTERVAL '1 day'))",
		"ALTER TABLE cc SET (timescaledb.compress, timescaledb.compress_segmentby = 'device_key')",
	} {
		if _, err := o.tsdb.Exec(ctx, q); err != nil {
			t.Fatalf("oracle: %s: %v", q, err)
		}
	}
	write := func(at time.Time, v int) (tsdb, flockd answer) {
		t.Helper()
		tsdb, flockd = answer{val: "accepted"}, answer{val: "accepted"}
		if err := db.InsertRows(ctx, unitRealm.Name, "cc", unitWriter, map[string]any{"tsp": at.UnixMilli(), "v": v}); err != nil {
			flockd = answer{err: err.Error()}
		}
		if _, err := o.tsdb.Exec(ctx, "INSERT INTO cc VALUES ($1, 42, $2)", at, v); err != nil {
			tsdb = answer{err: err.Error()}
		}
		return tsdb, flockd
	}
	for i := range 10 * 24 {
		write(now.Add(-time.Duration(i)*time.Hour), i)
	}
	if err := b.store.Maintain(ctx, now.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	var compressed int
	if err := o.tsdb.QueryRow(ctx, `SELECT count(compress_chunk(c)) FROM show_chunks('cc', older_than => $1::timestamptz - INTERVAL '7 days') c`,
		now).Scan(&compressed); err != nil || compressed == 0 {
		t.Fatalf("oracle: compressing the chunks past 7 days: %d chunks (%v)", compressed, err)
	}
	late := now.Add(-8*24*time.Hour + 30*time.Minute)
	tsdb, flockd := write(late, 1000)
	ta.add(oracleCase{topic: "compression", form: "a late row into a compressed chunk", input: late.Format(time.RFC3339),
		tsdb: tsdb, flockd: flockd}, knobsAllowed)
	day := late.Truncate(24 * time.Hour)
	var tsdbRows int
	if err := o.tsdb.QueryRow(ctx, "SELECT count(*) FROM cc WHERE tsp >= $1 AND tsp < $2", day, day.Add(24*time.Hour)).Scan(&tsdbRows); err != nil {
		t.Fatal(err)
	}
	stored, err := db.TableRows(ctx, unitRealm.Name, "cc")
	if err != nil {
		t.Fatal(err)
	}
	flockdRows := 0
	for _, r := range stored {
		// Rows carry tsp as the platform sends it: an ISO 8601 text.
		text, _ := r["tsp"].(string)
		if at, err := time.Parse(time.RFC3339Nano, text); err == nil && !at.Before(day) && at.Before(day.Add(24*time.Hour)) {
			flockdRows++
		}
	}
	ta.add(oracleCase{topic: "compression", form: "rows of the compressed day", input: day.Format(time.DateOnly),
		tsdb: answer{val: fmt.Sprint(tsdbRows)}, flockd: answer{val: fmt.Sprint(flockdRows)}}, knobsAllowed)
}
