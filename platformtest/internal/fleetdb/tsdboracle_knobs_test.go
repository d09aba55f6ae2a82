package fleetdb

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// knobsAllowed are the differences of the data template's knobs flockd
// keeps, each documented in docs/postgres.md.
var knobsAllowed = []allowedDiff{
	{name: "retention drops rows at exactly dropAfter, not whole chunks", match: func(c oracleCase) bool {
		return c.topic == "retention" && c.tsdb.val == "kept" && c.flockd.val == "dropped"
	}},
}

// retentionAges are the ages of the rows of the retention comparison at
// its "now", around dropAfter 14 days.
var retentionAges = []time.Duration{
	13 * 24 * time.Hour, 14*24*time.Hour - time.Minute, 14 * 24 * time.Hour, 14*24*time.Hour + time.Hour,
	14*24*time.Hour + 9*time.Hour, 14*24*time.Hour + 15*time.Hour, 15*24*time.Hour - time.Minute,
	15 * 24 * time.Hour, 15*24*time.Hour + 10*time.Hour, 17 * 24 * time.Hour, 20 * 24 * time.Hour, 22 * 24 * time.Hour,
}

// compareRetention stores the same rows in a table with dropAfter 14 days
// on both sides, runs retention at the same instant (flockd's Maintain,
// TimescaleDB's drop_chunks as its retention policy does) and compares
// which rows are kept, with daily chunks and with TimescaleDB's default
// of 7 days.
func compareRetention(t *testing.T, o *oracle, ta *tally) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	pg := unitStore{"postgres", func(tb testing.TB) Store {
		return openScratchPostgres(tb, o.pgURL, PostgresConfig{})
	}}
	for i, chunk := range []string{"1 day", ""} {
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
		table := fmt.Sprintf("kept_%d", i)
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
		if err := b.store.(Maintainer).Maintain(ctx, now.UnixMilli()); err != nil {
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
			ta.add(oracleCase{topic: "retention", form: "dropAfter 14 days, chunks of " + tsdbChunk,
				input: fmt.Sprintf("row %s old", age), tsdb: state(tsdbKept, n), flockd: state(flockdKept, n)}, knobsAllowed)
		}
	}
}
