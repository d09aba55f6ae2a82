package platformtest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
)

// filterRows are the rows of the filter tests; row i has tsp t0 + i s.
func filterRows(t *testing.T, f *dbFixture) {
	t.Helper()
	rows := []map[string]any{
		{"temperature": 10, "n": 1, "source": "alpha", "ok": true, "payload": map[string]any{"temp": 5, "tag": "x", "nested": map[string]any{"v": 1}}, "seen": t0},
		{"temperature": 20.5, "n": 2, "source": "beta_1", "ok": false, "payload": map[string]any{"temp": 15, "tag": "y"}, "seen": t0.Add(time.Hour)},
		{},
		{"temperature": -5, "n": 3, "source": "Gamma%", "ok": true, "payload": map[string]any{"temp": "25", "tag": "z"}, "seen": "2026-01-02T00:00:00Z"},
		{"temperature": 30, "n": 10, "source": `a\b`, "payload": []any{1, 2}},
		{"temperature": 0, "n": 0, "source": "", "ok": false, "device_key": 43, "authid": "other"},
		{"temperature": 40, "source": "betaX1"},
	}
	for i, r := range rows {
		r["tsp"] = t0.Add(time.Duration(i) * time.Second)
	}
	f.insert(t, "sensordata", rows...)
}

// ids runs a read with filterAnd and returns the row numbers, ascending.
func ids(t *testing.T, f *dbFixture, filters ...any) []int {
	t.Helper()
	query := q("limit", 100, "offset", 0)
	if filters != nil {
		query["filterAnd"] = filters
	}
	rows := f.history(t, "sensordata", query)
	out := []int{}
	for _, r := range rows {
		out = append(out, int((isoMs(t, r["tsp"])-ms(0))/1000))
	}
	return out
}

// TestFilterOperators: every operator with NULL handling (SQL
// three-valued logic), coercion of values, LIKE escapes, IN over lists and
// comma-joined texts with the empty-set rule, json paths, implicit columns
// and groups.
func TestFilterOperators(t *testing.T) { eachStore(t, testFilterOperators) }

func testFilterOperators(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	filterRows(t, f)
	all := []int{0, 1, 2, 3, 4, 5, 6}
	group := func(comb string, nodes ...any) map[string]any {
		return map[string]any{"combinator": comb, "filters": list(nodes...)}
	}
	cases := []struct {
		name    string
		filters []any
		want    []int
	}{
		{"no filter", nil, all},
		{"=", list(pred("temperature", "=", 20.5)), []int{1}},
		{"= text coerced", list(pred("temperature", "=", "20.5")), []int{1}},
		{"= uncoercible dropped", list(pred("temperature", "=", "abc")), all},
		{"!=", list(pred("temperature", "!=", 10)), []int{1, 3, 4, 5, 6}},
		{"<>", list(pred("temperature", "<>", 10)), []int{1, 3, 4, 5, 6}},
		{">", list(pred("temperature", ">", 10)), []int{1, 4, 6}},
		{"<", list(pred("temperature", "<", 10)), []int{3, 5}},
		{">=", list(pred("temperature", ">=", 10)), []int{0, 1, 4, 6}},
		{"<=", list(pred("temperature", "<=", 0)), []int{3, 5}},
		{"bigint > text", list(pred("n", ">", "2")), []int{3, 4}},
		{"bigint = true is 1", list(pred("n", "=", true)), []int{0}},
		{"IS NULL", list(pred("temperature", "IS NULL")), []int{2}},
		{"IS NOT NULL", list(pred("n", "IS NOT NULL")), []int{0, 1, 3, 4, 5}},
		{"IS NULL ignores a value", list(pred("source", "IS NULL", "x")), []int{2}},
		{"IS null (the seed's IS)", list(pred("temperature", "IS", nil)), []int{2}},
		{"IS without a value is IS null", list(pred("temperature", "IS")), []int{2}},
		{"IS NOT null", list(pred("n", "IS NOT", nil)), []int{0, 1, 3, 4, 5}},
		{"IS true", list(pred("ok", "IS", true)), []int{0, 3}},
		{"IS false", list(pred("ok", "IS", false)), []int{1, 5}},
		{"IS NOT true: NULL included", list(pred("ok", "IS NOT", true)), []int{1, 2, 4, 5, 6}},
		{"IS NOT false", list(pred("ok", "IS NOT", false)), []int{0, 2, 3, 4, 6}},
		{"LIKE %", list(pred("source", "LIKE", "a%")), []int{0, 4}},
		{"LIKE _", list(pred("source", "LIKE", "beta_1")), []int{1, 6}},
		{"LIKE escaped _", list(pred("source", "LIKE", `beta\_1`)), []int{1}},
		{"LIKE escaped %", list(pred("source", "LIKE", `Gamma\%`)), []int{3}},
		{"LIKE backslash", list(pred("source", "LIKE", `%\\%`)), []int{4}},
		{"LIKE is case-sensitive", list(pred("source", "LIKE", "gamma%")), []int{}},
		{"ILIKE", list(pred("source", "ILIKE", "GAMMA%")), []int{3}},
		{"NOT LIKE", list(pred("source", "NOT LIKE", "a%")), []int{1, 3, 5, 6}},
		{"NOT ILIKE", list(pred("source", "NOT ILIKE", "BETA%")), []int{0, 3, 4, 5}},
		{"LIKE numeric never", list(pred("temperature", "LIKE", "1%")), []int{}},
		{"NOT LIKE numeric never", list(pred("temperature", "NOT LIKE", "1%")), []int{}},
		{"LIKE timestamp never", list(pred("seen", "LIKE", "%")), []int{}},
		{"LIKE json never", list(pred("payload", "LIKE", "%")), []int{}},
		{"LIKE bigint", list(pred("n", "LIKE", "1%")), []int{0, 4}},
		{"LIKE boolean", list(pred("ok", "LIKE", "t%")), []int{0, 3}},
		{"IN list", list(pred("temperature", "IN", list(10, 30))), []int{0, 4}},
		{"IN text", list(pred("temperature", "IN", "10, 30")), []int{0, 4}},
		{"IN scalar", list(pred("temperature", "IN", 30)), []int{4}},
		{"IN empty", list(pred("temperature", "IN", list())), []int{}},
		{"NOT IN empty", list(pred("temperature", "NOT IN", list())), all},
		{"NOT IN", list(pred("temperature", "NOT IN", list(10))), []int{1, 3, 4, 5, 6}},
		{"IN strings", list(pred("source", "IN", list("alpha", "beta_1"))), []int{0, 1}},
		{"NOT IN text", list(pred("source", "NOT IN", "alpha")), []int{1, 3, 4, 5, 6}},
		{"IN uncoercible dropped", list(pred("temperature", "IN", list("x"))), all},
		{"timestamp ISO", list(pred("seen", ">=", "2026-01-01T00:30:00Z")), []int{1, 3}},
		{"timestamp d.m.yyyy", list(pred("seen", "<", "2.1.2026")), []int{0, 1}},
		{"timestamp ms", list(pred("seen", "=", ms(0))), []int{0}},
		{"timestamp ms text", list(pred("seen", ">", "1767225600000")), []int{1, 3}},
		{"timestamp garbage dropped", list(pred("seen", ">", "soon")), all},
		{"tsp", list(pred("tsp", "<", ms(2*time.Second))), []int{0, 1}},
		{"boolean text", list(pred("ok", "=", "true")), []int{0, 3}},
		{"boolean 0", list(pred("ok", "=", 0)), []int{1, 5}},
		{"boolean !=", list(pred("ok", "!=", true)), []int{1, 5}},
		{"json path number", list(pred("payload.temp", ">", 10)), []int{1, 3}},
		{"json path text", list(pred("payload.tag", "=", "x")), []int{0}},
		{"json nested path", list(pred("payload.nested.v", "=", 1)), []int{0}},
		{"json bracket path", list(pred("payload['tag']", "IN", list("x", "z"))), []int{0, 3}},
		{"json path IS NULL", list(pred("payload.tag", "IS NULL")), []int{2, 4, 5, 6}},
		{"json path LIKE", list(pred("payload.tag", "LIKE", "%y")), []int{1}},
		{"json column", list(pred("payload", "=", `{"temp": 15, "tag": "y"}`)), []int{1}},
		{"device_key", list(pred("device_key", "=", "43")), []int{5}},
		{"authid", list(pred("authid", "=", f.serial)), []int{0, 1, 2, 3, 4, 6}},
		{"unknown column dropped", list(pred("nosuch", "=", 1)), all},
		{"path into non-json dropped", list(pred("source.x", "=", 1)), all},
		{"two conditions", list(pred("temperature", ">", 0), pred("n", "<", 3)), []int{0, 1}},
		{"OR", list(group("OR", pred("temperature", ">", 25), pred("source", "=", "alpha"))), []int{0, 4, 6}},
		{"OR with NULL", list(group("OR", pred("temperature", ">", 100), pred("temperature", "IS NULL"))), []int{2}},
		{"OR unknown is not true", list(group("OR", pred("temperature", "=", 10), pred("n", "=", 99))), []int{0}},
		{"nested", list(group("AND", pred("temperature", ">", 0), group("OR", pred("n", "=", 1), pred("n", "=", 10)))), []int{0, 4}},
		{"emptied group removed", list(group("AND", pred("nosuch", "=", 1))), all},
		{"empty group", list(group("OR")), all},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ids(t, f, tc.filters...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterRefusals: malformed filters that pass the validator.
func TestFilterRefusals(t *testing.T) { eachStore(t, testFilterRefusals) }

func testFilterRefusals(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	for name, node := range map[string]any{
		"group and condition":  map[string]any{"combinator": "AND", "filters": list(), "column": "n", "operator": "=", "value": 1},
		"marker and condition": map[string]any{"latest": true, "column": "n", "operator": "=", "value": 1},
		"nested mix":           map[string]any{"combinator": "OR", "filters": list(map[string]any{"filters": list(), "combinator": "AND", "value": 1})},
		"no value":             pred("n", "="),
		"IN without value":     pred("n", "IN"),
		"list with =":          pred("n", "=", list(1, 2)),
		"list with LIKE":       pred("source", "LIKE", list("a")),
	} {
		call(t, f.c, "history.transformed.sensordata", q("limit", 10, "filterAnd", list(node)), nil, false).
			refused(t, name, wire.ErrInvalidFilter)
	}
}
