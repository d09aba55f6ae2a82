package fleetdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// The differential tests: the same rows in the memory store and in every
// other store of the conformance suite, then hundreds of random reads
// (filters of every operator over every column type and json paths, the
// latest marker, time ranges, offsets) and series, whose answers must be
// the same. The memory store is the reference (Filter.Match,
// SeriesBuilder); the random generator is seeded, so a failure repeats.

// diffTemplate has every column type, an entity table and a plain one.
const diffTemplate = `
data:
  tables:
    - tablename: plain
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: num, dataType: numeric}
        - {id: big, dataType: bigint}
        - {id: str, dataType: string}
        - {id: flag, dataType: boolean}
        - {id: doc, dataType: json}
        - {id: seen, dataType: timestamp}
    - tablename: entity
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: num, dataType: numeric}
        - {id: big, dataType: bigint}
        - {id: str, dataType: string}
        - {id: flag, dataType: boolean}
        - {id: doc, dataType: json}
        - {id: seen, dataType: timestamp}
`

// diffPools are the values the generator picks from.
var (
	diffNums = []any{nil, -1.5, 0.0, 2.0, 10.0, 20.5, 1e21, 1e-7, 123456789.125, -0.001, 1e300}
	diffBigs = []any{nil, int64(-3), int64(0), int64(1), int64(2), int64(10), int64(1) << 53, int64(9007199254740993)}
	diffStrs = []any{nil, "", "alpha", "Alpha", "beta_1", "betaX1", `a\b`, "50%", "ÄÖü", "<&>", "10", "2.5", " 7 ",
		"0x1F", "1e400", "Infinity", "-0", "true", "{\"a\":1}", "line\nbreak", "tab\tx", "z"}
	diffFlags = []any{nil, true, false}
	diffSeen  = []any{nil, "2026-01-01T00:00:00Z", "2026-01-01T12:30:00.250Z", "2025-12-31T23:59:59Z", int64(0), "1999-01-01T00:00:00Z"}
	diffKeys  = []any{nil, "m1", "m2", "m3", "M1"}
)

func pick(r *rand.Rand, pool []any) any { return pool[r.IntN(len(pool))] }

// diffRows returns random rows of a table; on the entity table each
// (machine, tsp) is unique and some rows leave columns out, so that they
// are merged from the entity's newest row.
func diffRows(r *rand.Rand, entity bool, n int) []map[string]any {
	used := map[string]bool{}
	var rows []map[string]any
	for len(rows) < n {
		row := map[string]any{"tsp": ms(time.Duration(r.IntN(40)) * time.Second)}
		for _, c := range []struct {
			id   string
			pool []any
		}{{"num", diffNums}, {"big", diffBigs}, {"str", diffStrs}, {"flag", diffFlags}, {"seen", diffSeen}} {
			if !entity || r.IntN(4) > 0 {
				row[c.id] = pick(r, c.pool)
			}
		}
		if !entity || r.IntN(4) > 0 {
			row["doc"] = storetest.RandomDoc(r, 0)
		}
		if r.IntN(5) == 0 {
			row["device_key"] = int64(43)
		}
		if entity {
			k := pick(r, diffKeys)
			row["machine"] = k
			id := fmt.Sprint(k, row["tsp"])
			if k != nil && used[id] {
				continue
			}
			used[id] = true
		}
		rows = append(rows, row)
	}
	return rows
}

// diffFilter returns a random filter node.
func diffFilter(r *rand.Rand, depth int, entity bool) map[string]any {
	if depth < 2 && r.IntN(4) == 0 {
		nodes := make([]any, 1+r.IntN(3))
		for i := range nodes {
			nodes[i] = diffFilter(r, depth+1, entity)
		}
		return map[string]any{"combinator": []string{"AND", "OR"}[r.IntN(2)], "filters": nodes}
	}
	cols := []string{"num", "big", "str", "flag", "doc", "seen", "tsp", "device_key", "authid",
		"doc.a", "doc.b", "doc.a.b", "doc.0", "doc['c']", "doc.a.1", "doc.-1", "nosuch"}
	if entity {
		cols = append(cols, "machine", "machine", "machine")
	}
	ops := []string{"=", "!=", "<>", ">", "<", ">=", "<=", "LIKE", "ILIKE", "NOT LIKE", "NOT ILIKE",
		"IN", "NOT IN", "IS NULL", "IS NOT NULL", "IS", "IS NOT"}
	values := []any{1.0, 2.5, int64(10), -1.5, 20.5, 0.0, "2.5", "10", "abc", "alpha", "%a%", "a%", "_", `%\\%`,
		`beta\_1`, "%", "ÄÖ%", "äöü", "x", "15", true, false, "true", "1",
		"2026-01-01T00:00:30Z", "2026-01-01T12:00:00Z", "1.1.2026", ms(20 * time.Second), "-999999999999999999", "99999999999999999",
		"m1", "M1", `{"a": 1}`, "1e21", "1e-7", "Infinity"}
	m := map[string]any{"column": cols[r.IntN(len(cols))], "operator": ops[r.IntN(len(ops))]}
	switch m["operator"] {
	case "IS NULL", "IS NOT NULL":
	case "IS", "IS NOT":
		m["value"] = []any{nil, true, false}[r.IntN(3)]
	case "IN", "NOT IN":
		switch r.IntN(3) {
		case 0:
			m["value"] = "alpha, 10 ,m1,2.5"
		case 1:
			m["value"] = []any{}
		default:
			l := make([]any, 1+r.IntN(3))
			base := r.IntN(len(values))
			for i := range l {
				l[i] = values[(base+i*7)%len(values)]
			}
			m["value"] = l
		}
	default:
		m["value"] = values[r.IntN(len(values))]
	}
	return m
}

// diffQuery returns a random table read.
func diffQuery(r *rand.Rand, entity bool) map[string]any {
	query := map[string]any{"limit": int64(1 + r.IntN(30)), "offset": int64(r.IntN(4))}
	if r.IntN(3) == 0 {
		query["offset"] = int64(0)
	}
	var filters []any
	for range r.IntN(3) {
		filters = append(filters, diffFilter(r, 0, entity))
	}
	if r.IntN(3) == 0 {
		filters = append(filters, map[string]any{"latest": true})
	}
	if filters != nil {
		query["filterAnd"] = filters
	}
	if r.IntN(3) == 0 {
		query["timeRange"] = []any{ms(time.Duration(r.IntN(20)) * time.Second), ms(time.Duration(20+r.IntN(25)) * time.Second)}
	}
	if r.IntN(4) == 0 {
		query["columns"] = []any{"num", "doc"}
		query["columnPaths"] = []any{"doc.a"}
	}
	return query
}

// diffSeries returns a random series read.
func diffSeries(r *rand.Rand, entity bool) map[string]any {
	refs := []struct{ ref, methods string }{
		{"num", "AVG SUM COUNT MIN MAX FIRST LAST"}, {"big", "AVG SUM COUNT MIN MAX FIRST LAST"},
		{"str", "COUNT MIN MAX FIRST LAST"}, {"flag", "COUNT FIRST LAST"}, {"seen", "COUNT MIN MAX FIRST LAST"},
		{"doc", "COUNT FIRST LAST"}, {"tsp", "COUNT"}, {"doc.a", "COUNT FIRST LAST AVG SUM MIN MAX"},
		{"doc.b", "COUNT FIRST LAST"}, {"device_key", "SUM COUNT MIN MAX"},
	}
	var metrics []any
	for range 1 + r.IntN(4) {
		ref := refs[r.IntN(len(refs))]
		methods := strings.Fields(ref.methods)
		metrics = append(metrics, map[string]any{"ref": ref.ref, "method": methods[r.IntN(len(methods))]})
	}
	query := map[string]any{"metrics": metrics, "limit": int64(1 + r.IntN(12)),
		"timeRange": []any{ms(time.Duration(r.IntN(10)) * time.Second), ms(time.Duration(15+r.IntN(30)) * time.Second)}}
	if r.IntN(3) == 0 {
		query["bucketMs"] = int64(1000 * (1 + r.IntN(8)))
	}
	if r.IntN(2) == 0 {
		groups := []string{"flag", "device_key", "str", "doc.b"}
		if entity {
			groups = append(groups, "machine")
		}
		query["groupBy"] = []any{groups[r.IntN(len(groups))]}
	}
	if r.IntN(2) == 0 {
		f := diffFilter(r, 1, entity)
		if _, latest := f["latest"]; !latest {
			query["filterAnd"] = []any{f}
		}
	}
	return query
}

// wholeNumbers compares the numbers of answer rows as float64: a sum of
// doubles may differ in its last bits where the stores add in another
// order, and an answer sends a whole number as an integer.
var wholeNumbers = cmp.Transformer("numbers", func(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n, ok := v.(int64); ok {
			v = float64(n)
		}
		out[k] = v
	}
	return out
})

// outcome is a read's answer or its refusal.
type outcome struct {
	Rows []map[string]any
	Err  string
}

func describeErr(e *fleetError) string {
	if e == nil {
		return ""
	}
	return e.uri + fmt.Sprint(e.args)
}

// TestDifferential: random reads and series answer the same on every
// store as on the memory store.
func TestDifferential(t *testing.T) {
	stores := unitStoresOf(t)
	if len(stores) < 2 {
		t.Log("only the memory store is configured: nothing to compare (set $" + postgresEnv + ")")
	}
	for _, s := range stores[1:] {
		t.Run("store="+s.name, func(t *testing.T) { testDifferential(t, s) })
	}
}

func testDifferential(t *testing.T, s unitStore) {
	r := rand.New(rand.NewPCG(diffSeed, 2026))
	mdb, mb := newTemplateDB(t, memoryStore, diffTemplate)
	odb, ob := newTemplateDB(t, s, diffTemplate)
	ctx := context.Background()
	for _, table := range []string{"plain", "entity"} {
		rows := diffRows(r, table == "entity", 80)
		for _, db := range []*DB{mdb, odb} {
			// In small appends, so that entity rows merge across them.
			for i := 0; i < len(rows); i += 7 {
				if err := db.InsertRows(ctx, unitRealm.Name, table, unitWriter, rows[i:min(i+7, len(rows))]...); err != nil {
					t.Fatalf("insert into %s: %v", table, err)
				}
			}
		}
		mt, err := mdb.TableRows(ctx, unitRealm.Name, table)
		if err != nil {
			t.Fatal(err)
		}
		ot, err := odb.TableRows(ctx, unitRealm.Name, table)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(mt, ot); d != "" {
			t.Fatalf("%s: stored rows differ (-memory +%s):\n%s", table, s.name, d)
		}
	}
	failures := 0
	compare := func(what string, query map[string]any, m, o outcome) {
		t.Helper()
		if d := cmp.Diff(m, o, cmpopts.EquateEmpty(), cmpopts.EquateApprox(1e-9, 0), wholeNumbers); d != "" {
			failures++
			if failures <= 10 {
				t.Errorf("%s %v: answers differ (-memory +%s):\n%s", what, query, s.name, d)
			}
		}
	}
	for i := range diffReads {
		table := []string{"plain", "entity"}[i%2]
		query := diffQuery(r, table == "entity")
		read := func(b *backend) outcome {
			q, err := validateHistory(wireArgs(query))
			if err != nil {
				t.Fatalf("query %v: %v", query, err)
			}
			rows, ferr := b.history(ctx, b.table(table), q)
			return outcome{Rows: rows, Err: describeErr(ferr)}
		}
		compare("history of "+table, query, read(mb), read(ob))
	}
	for i := range diffSeriesN {
		table := []string{"plain", "entity"}[i%2]
		query := diffSeries(r, table == "entity")
		series := func(b *backend) outcome {
			q, err := validateSeries(wireArgs(query))
			if err != nil {
				t.Fatalf("series %v: %v", query, err)
			}
			rows, ferr := b.series(ctx, b.table(table), q, ms(time.Hour))
			return outcome{Rows: rows, Err: describeErr(ferr)}
		}
		compare("series of "+table, query, series(mb), series(ob))
	}
	if failures > 0 {
		t.Errorf("%d answers differ", failures)
	}
}

// The size of the differential test.
var (
	diffSeed    uint64 = 24
	diffReads          = 600
	diffSeriesN        = 400
)
