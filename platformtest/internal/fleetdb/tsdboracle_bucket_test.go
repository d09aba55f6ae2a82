package fleetdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"
)

// allowedDiff is a difference from TimescaleDB the store has on purpose,
// documented in docs/postgres.md: it names the difference and recognises
// its cases.
type allowedDiff struct {
	name  string
	match func(c oracleCase) bool
}

// oracleCase is one comparison: what was asked and what each side said.
type oracleCase struct {
	topic, form, input string
	tsdb, flockd       answer
}

// tally counts the comparisons of a test and reports those that differ.
type tally struct {
	compared int
	errors   map[string]int // cases both sides refused (an error each), by form
	allowed  map[string]int
	wrong    []oracleCase
}

func (ta *tally) add(c oracleCase, allow []allowedDiff) {
	ta.compared++
	if c.tsdb.err != "" && c.flockd.err != "" {
		if ta.errors == nil {
			ta.errors = map[string]int{}
		}
		ta.errors[c.topic+" "+c.form]++
		return
	}
	if c.tsdb == c.flockd {
		return
	}
	for _, a := range allow {
		if a.match(c) {
			if ta.allowed == nil {
				ta.allowed = map[string]int{}
			}
			ta.allowed[a.name]++
			return
		}
	}
	ta.wrong = append(ta.wrong, c)
}

// report logs the counts and fails the test on an unexplained difference.
func (ta *tally) report(t *testing.T, o *oracle) {
	t.Helper()
	var names []string
	for n, k := range ta.allowed {
		names = append(names, fmt.Sprintf("%s: %d", n, k))
	}
	sort.Strings(names)
	t.Logf("TimescaleDB %s oracle: %d cases compared, %d unexplained differences; allowed (docs/postgres.md): %v; refused by both: %v",
		o.version, ta.compared, len(ta.wrong), names, ta.errors)
	for i, c := range ta.wrong {
		if i == 20 {
			t.Errorf("… and %d more", len(ta.wrong)-i)
			break
		}
		t.Errorf("%s %s (%s): TimescaleDB %v, flockd %v", c.topic, c.form, c.input, c.tsdb, c.flockd)
	}
}

// bucketWidths and bucketForms are what the comparison of time_bucket
// covers: every form TimescaleDB has, F standing for the function, {W}
// for the width and {T} for the timestamp (timestamptz) of a case.
var (
	bucketWidths = []string{"1 second", "7 seconds", "1 minute", "5 minutes", "15 minutes", "1 hour", "3 hours",
		"1 day", "2 days", "1 week", "10 days", "1 month", "3 months", "1 year", "14 months"}
	bucketForms = map[string]string{
		"(interval, timestamptz)":             "F({W}, {T})",
		"(interval, timestamp)":               "F({W}, {T} AT TIME ZONE 'UTC')",
		"(interval, timestamptz, origin)":     "F({W}, {T}, timestamptz '2026-01-01 06:00+00')",
		"(interval, timestamptz, old origin)": "F({W}, {T}, origin => timestamptz '1969-12-20 13:30+00')",
		"(interval, timestamp, origin)":       "F({W}, {T} AT TIME ZONE 'UTC', timestamp '2026-01-01 06:00')",
		"(interval, timestamptz, Berlin)":     "F({W}, {T}, 'Europe/Berlin')",
		"(interval, timestamptz, New York)":   "F({W}, {T}, 'America/New_York')",
		"(interval, timestamptz, tz, origin)": "F({W}, {T}, 'Europe/Berlin', timestamptz '2026-01-01 06:00+00')",
		"(interval, timestamptz, offset)":     `F({W}, {T}, "offset" => interval '5 minutes')`,
		"(interval, timestamp, -offset)":      `F({W}, {T} AT TIME ZONE 'UTC', "offset" => interval '-2 hours')`,
		"(interval, timestamptz, tz, offset)": `F({W}, {T}, 'Europe/Berlin', "offset" => interval '30 minutes')`,
	}
)

// bucketStamps returns the timestamps of the comparison: random ones from
// 1965 to 2045, origins and the DST changes of Berlin and New York.
func bucketStamps() []string {
	r := rand.New(rand.NewPCG(34, 5))
	lo, hi := time.Date(1965, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2045, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []string
	for range 160 {
		at := lo.Add(time.Duration(r.Int64N(int64(hi.Sub(lo)/time.Millisecond))) * time.Millisecond)
		out = append(out, at.Format("2006-01-02T15:04:05.000Z"))
	}
	return append(out,
		"1965-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "2000-01-01T00:00:00.000Z",
		"2000-01-02T23:59:59.999Z", "2000-01-03T00:00:00.000Z", "1999-12-31T23:00:00.000Z", "2026-01-01T06:00:00.000Z",
		"2044-12-31T23:59:59.999Z",
		// Berlin: CEST starts 2026-03-29 01:00Z, ends 2026-10-25 01:00Z.
		"2026-03-28T23:00:00.000Z", "2026-03-29T00:59:59.999Z", "2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z",
		"2026-03-29T22:00:00.000Z", "2026-10-24T22:00:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-25T01:00:00.000Z",
		"2026-10-25T01:30:00.000Z", "2026-10-25T23:00:00.000Z",
		// New York: EDT starts 2026-03-08 07:00Z, ends 2026-11-01 06:00Z.
		"2026-03-08T06:59:59.000Z", "2026-03-08T07:00:00.000Z", "2026-03-08T07:30:00.000Z", "2026-11-01T05:30:00.000Z",
		"2026-11-01T06:00:00.000Z", "2026-11-01T06:30:00.000Z", "2026-11-01T04:00:00.000Z",
		// The old rules: Berlin had no DST from 1950 to 1979, New York changed in 2007.
		"1980-04-06T01:30:00.000Z", "1975-04-27T07:30:00.000Z", "2006-10-29T06:30:00.000Z")
}

// bucketAllowed are the differences of time_bucket flockd keeps.
var bucketAllowed = []allowedDiff{}

// TestTimescaleOracle compares the PostgreSQL store's TimescaleDB
// emulation with TimescaleDB itself (tsdboracle/, PGlite with TimescaleDB
// 2.23): time_bucket in all its forms, then retention, downsampling and
// the rest (tsdboracle_knobs_test.go). Every difference is a failure
// unless bucketAllowed or knobsAllowed name it.
func TestTimescaleOracle(t *testing.T) {
	o := startOracle(t)
	if o == nil {
		return
	}
	ta := &tally{}
	compareBuckets(t, o, ta)
	compareRetention(t, o, ta)
	compareDownsample(t, o, ta)
	compareFirstLast(t, o, ta)
	compareLateIntoCompressed(t, o, ta)
	ta.report(t, o)
}

// compareBuckets runs every form of time_bucket with every width on
// every timestamp on both sides.
func compareBuckets(t *testing.T, o *oracle, ta *tally) {
	ctx := context.Background()
	stamps := bucketStamps()
	forms := make([]string, 0, len(bucketForms))
	for f := range bucketForms {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	for _, form := range forms {
		expr := strings.NewReplacer("{W}", "$1::interval", "{T}", "$2::timestamptz").Replace(bucketForms[form])
		expr = strings.NewReplacer("$1", "split_part($1, '|', 1)", "$2", "split_part($1, '|', 2)").Replace(expr)
		for _, w := range bucketWidths {
			cases := make([]string, len(stamps))
			for i, s := range stamps {
				cases[i] = w + "|" + s
			}
			tsdb := evaluate(ctx, o.tsdb, strings.ReplaceAll(expr, "F(", "public.time_bucket("), cases)
			flockd := evaluate(ctx, o.pg, strings.ReplaceAll(expr, "F(", o.schema+".time_bucket("), cases)
			for i := range cases {
				ta.add(oracleCase{topic: "time_bucket", form: form, input: cases[i], tsdb: tsdb[i], flockd: flockd[i]}, bucketAllowed)
			}
		}
	}
}
