package fleetdb_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// filterRows are the rows of the filter tests; row i has tsp t0 + i s.
func filterRows(t *testing.T, f *dbFixture) {
	t.Helper()
	rows := []map[string]any{
		{"temperature": 10, "n": 1, "source": "alpha", "ok": true, "payload": map[string]any{"temp": 5, "tag": "x", "nested": map[string]any{"v": 1}}, "seen": worldtest.T0},
		{"temperature": 20.5, "n": 2, "source": "beta_1", "ok": false, "payload": map[string]any{"temp": 15, "tag": "y"}, "seen": worldtest.T0.Add(time.Hour)},
		{},
		{"temperature": -5, "n": 3, "source": "Gamma%", "ok": true, "payload": map[string]any{"temp": "25", "tag": "z"}, "seen": "2026-01-02T00:00:00Z"},
		{"temperature": 30, "n": 10, "source": `a\b`, "payload": []any{1, 2}},
		{"temperature": 0, "n": 0, "source": "", "ok": false, "device_key": 43, "authid": "other"},
		{"temperature": 40, "source": "betaX1"},
	}
	for i, r := range rows {
		r["tsp"] = worldtest.T0.Add(time.Duration(i) * time.Second)
	}
	f.insert(t, "sensordata", rows...)
}

// ids runs a read with filterAnd and returns the row numbers, ascending.
func ids(t *testing.T, f *dbFixture, filters ...any) []int {
	t.Helper()
	query := worldtest.Q("limit", 100, "offset", 0)
	if filters != nil {
		query["filterAnd"] = filters
	}
	rows := f.history(t, "sensordata", query)
	out := []int{}
	for _, r := range rows {
		out = append(out, int((worldtest.ISOMs(t, r["tsp"])-worldtest.Ms(0))/1000))
	}
	return out
}

// TestFilterOperators: every operator with NULL handling (SQL
// three-valued logic), coercion of values, LIKE escapes, IN over lists and
// comma-joined texts with the empty-set rule, json paths, implicit columns
// and groups.
func TestFilterOperators(t *testing.T) { backends.EachStore(t, testFilterOperators) }

func testFilterOperators(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	filterRows(t, f)
	all := []int{0, 1, 2, 3, 4, 5, 6}
	group := func(comb string, nodes ...any) map[string]any {
		return map[string]any{"combinator": comb, "filters": worldtest.List(nodes...)}
	}
	cases := []struct {
		name    string
		filters []any
		want    []int
	}{
		{"no filter", nil, all},
		{"=", worldtest.List(worldtest.Pred("temperature", "=", 20.5)), []int{1}},
		{"= text coerced", worldtest.List(worldtest.Pred("temperature", "=", "20.5")), []int{1}},
		{"= uncoercible dropped", worldtest.List(worldtest.Pred("temperature", "=", "abc")), all},
		{"!=", worldtest.List(worldtest.Pred("temperature", "!=", 10)), []int{1, 3, 4, 5, 6}},
		{"<>", worldtest.List(worldtest.Pred("temperature", "<>", 10)), []int{1, 3, 4, 5, 6}},
		{">", worldtest.List(worldtest.Pred("temperature", ">", 10)), []int{1, 4, 6}},
		{"<", worldtest.List(worldtest.Pred("temperature", "<", 10)), []int{3, 5}},
		{">=", worldtest.List(worldtest.Pred("temperature", ">=", 10)), []int{0, 1, 4, 6}},
		{"<=", worldtest.List(worldtest.Pred("temperature", "<=", 0)), []int{3, 5}},
		{"bigint > text", worldtest.List(worldtest.Pred("n", ">", "2")), []int{3, 4}},
		{"bigint = true is 1", worldtest.List(worldtest.Pred("n", "=", true)), []int{0}},
		{"IS NULL", worldtest.List(worldtest.Pred("temperature", "IS NULL")), []int{2}},
		{"IS NOT NULL", worldtest.List(worldtest.Pred("n", "IS NOT NULL")), []int{0, 1, 3, 4, 5}},
		{"IS NULL ignores a value", worldtest.List(worldtest.Pred("source", "IS NULL", "x")), []int{2}},
		{"IS null (the seed's IS)", worldtest.List(worldtest.Pred("temperature", "IS", nil)), []int{2}},
		{"IS without a value is IS null", worldtest.List(worldtest.Pred("temperature", "IS")), []int{2}},
		{"IS NOT null", worldtest.List(worldtest.Pred("n", "IS NOT", nil)), []int{0, 1, 3, 4, 5}},
		{"IS true", worldtest.List(worldtest.Pred("ok", "IS", true)), []int{0, 3}},
		{"IS false", worldtest.List(worldtest.Pred("ok", "IS", false)), []int{1, 5}},
		{"IS NOT true: NULL included", worldtest.List(worldtest.Pred("ok", "IS NOT", true)), []int{1, 2, 4, 5, 6}},
		{"IS NOT false", worldtest.List(worldtest.Pred("ok", "IS NOT", false)), []int{0, 2, 3, 4, 6}},
		{"LIKE %", worldtest.List(worldtest.Pred("source", "LIKE", "a%")), []int{0, 4}},
		{"LIKE _", worldtest.List(worldtest.Pred("source", "LIKE", "beta_1")), []int{1, 6}},
		{"LIKE escaped _", worldtest.List(worldtest.Pred("source", "LIKE", `beta\_1`)), []int{1}},
		{"LIKE escaped %", worldtest.List(worldtest.Pred("source", "LIKE", `Gamma\%`)), []int{3}},
		{"LIKE backslash", worldtest.List(worldtest.Pred("source", "LIKE", `%\\%`)), []int{4}},
		{"LIKE is case-sensitive", worldtest.List(worldtest.Pred("source", "LIKE", "gamma%")), []int{}},
		{"ILIKE", worldtest.List(worldtest.Pred("source", "ILIKE", "GAMMA%")), []int{3}},
		{"NOT LIKE", worldtest.List(worldtest.Pred("source", "NOT LIKE", "a%")), []int{1, 3, 5, 6}},
		{"NOT ILIKE", worldtest.List(worldtest.Pred("source", "NOT ILIKE", "BETA%")), []int{0, 3, 4, 5}},
		{"LIKE numeric never", worldtest.List(worldtest.Pred("temperature", "LIKE", "1%")), []int{}},
		{"NOT LIKE numeric never", worldtest.List(worldtest.Pred("temperature", "NOT LIKE", "1%")), []int{}},
		{"LIKE timestamp never", worldtest.List(worldtest.Pred("seen", "LIKE", "%")), []int{}},
		{"LIKE json never", worldtest.List(worldtest.Pred("payload", "LIKE", "%")), []int{}},
		{"LIKE bigint", worldtest.List(worldtest.Pred("n", "LIKE", "1%")), []int{0, 4}},
		{"LIKE boolean", worldtest.List(worldtest.Pred("ok", "LIKE", "t%")), []int{0, 3}},
		{"IN list", worldtest.List(worldtest.Pred("temperature", "IN", worldtest.List(10, 30))), []int{0, 4}},
		{"IN text", worldtest.List(worldtest.Pred("temperature", "IN", "10, 30")), []int{0, 4}},
		{"IN scalar", worldtest.List(worldtest.Pred("temperature", "IN", 30)), []int{4}},
		{"IN empty", worldtest.List(worldtest.Pred("temperature", "IN", worldtest.List())), []int{}},
		{"NOT IN empty", worldtest.List(worldtest.Pred("temperature", "NOT IN", worldtest.List())), all},
		{"NOT IN", worldtest.List(worldtest.Pred("temperature", "NOT IN", worldtest.List(10))), []int{1, 3, 4, 5, 6}},
		{"IN strings", worldtest.List(worldtest.Pred("source", "IN", worldtest.List("alpha", "beta_1"))), []int{0, 1}},
		{"NOT IN text", worldtest.List(worldtest.Pred("source", "NOT IN", "alpha")), []int{1, 3, 4, 5, 6}},
		{"IN uncoercible dropped", worldtest.List(worldtest.Pred("temperature", "IN", worldtest.List("x"))), all},
		{"timestamp ISO", worldtest.List(worldtest.Pred("seen", ">=", "2026-01-01T00:30:00Z")), []int{1, 3}},
		{"timestamp d.m.yyyy", worldtest.List(worldtest.Pred("seen", "<", "2.1.2026")), []int{0, 1}},
		{"timestamp ms", worldtest.List(worldtest.Pred("seen", "=", worldtest.Ms(0))), []int{0}},
		{"timestamp ms text", worldtest.List(worldtest.Pred("seen", ">", "1767225600000")), []int{1, 3}},
		{"timestamp garbage dropped", worldtest.List(worldtest.Pred("seen", ">", "soon")), all},
		{"tsp", worldtest.List(worldtest.Pred("tsp", "<", worldtest.Ms(2*time.Second))), []int{0, 1}},
		{"boolean text", worldtest.List(worldtest.Pred("ok", "=", "true")), []int{0, 3}},
		{"boolean 0", worldtest.List(worldtest.Pred("ok", "=", 0)), []int{1, 5}},
		{"boolean !=", worldtest.List(worldtest.Pred("ok", "!=", true)), []int{1, 5}},
		{"json path number", worldtest.List(worldtest.Pred("payload.temp", ">", 10)), []int{1, 3}},
		{"json path text", worldtest.List(worldtest.Pred("payload.tag", "=", "x")), []int{0}},
		{"json nested path", worldtest.List(worldtest.Pred("payload.nested.v", "=", 1)), []int{0}},
		{"json bracket path", worldtest.List(worldtest.Pred("payload['tag']", "IN", worldtest.List("x", "z"))), []int{0, 3}},
		{"json path IS NULL", worldtest.List(worldtest.Pred("payload.tag", "IS NULL")), []int{2, 4, 5, 6}},
		{"json path LIKE", worldtest.List(worldtest.Pred("payload.tag", "LIKE", "%y")), []int{1}},
		{"json column", worldtest.List(worldtest.Pred("payload", "=", `{"temp": 15, "tag": "y"}`)), []int{1}},
		{"device_key", worldtest.List(worldtest.Pred("device_key", "=", "43")), []int{5}},
		{"authid", worldtest.List(worldtest.Pred("authid", "=", f.serial)), []int{0, 1, 2, 3, 4, 6}},
		{"unknown column dropped", worldtest.List(worldtest.Pred("nosuch", "=", 1)), all},
		{"path into non-json dropped", worldtest.List(worldtest.Pred("source.x", "=", 1)), all},
		{"two conditions", worldtest.List(worldtest.Pred("temperature", ">", 0), worldtest.Pred("n", "<", 3)), []int{0, 1}},
		{"OR", worldtest.List(group("OR", worldtest.Pred("temperature", ">", 25), worldtest.Pred("source", "=", "alpha"))), []int{0, 4, 6}},
		{"OR with NULL", worldtest.List(group("OR", worldtest.Pred("temperature", ">", 100), worldtest.Pred("temperature", "IS NULL"))), []int{2}},
		{"OR unknown is not true", worldtest.List(group("OR", worldtest.Pred("temperature", "=", 10), worldtest.Pred("n", "=", 99))), []int{0}},
		{"nested", worldtest.List(group("AND", worldtest.Pred("temperature", ">", 0), group("OR", worldtest.Pred("n", "=", 1), worldtest.Pred("n", "=", 10)))), []int{0, 4}},
		{"emptied group removed", worldtest.List(group("AND", worldtest.Pred("nosuch", "=", 1))), all},
		{"empty group", worldtest.List(group("OR")), all},
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
func TestFilterRefusals(t *testing.T) { backends.EachStore(t, testFilterRefusals) }

func testFilterRefusals(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	for name, node := range map[string]any{
		"group and condition":  map[string]any{"combinator": "AND", "filters": worldtest.List(), "column": "n", "operator": "=", "value": 1},
		"marker and condition": map[string]any{"latest": true, "column": "n", "operator": "=", "value": 1},
		"nested mix":           map[string]any{"combinator": "OR", "filters": worldtest.List(map[string]any{"filters": worldtest.List(), "combinator": "AND", "value": 1})},
		"no value":             worldtest.Pred("n", "="),
		"IN without value":     worldtest.Pred("n", "IN"),
		"list with =":          worldtest.Pred("n", "=", worldtest.List(1, 2)),
		"list with LIKE":       worldtest.Pred("source", "LIKE", worldtest.List("a")),
	} {
		worldtest.Call(t, f.c, "history.transformed.sensordata", worldtest.Q("limit", 10, "filterAnd", worldtest.List(node)), nil, false).
			Refused(t, name, wire.ErrInvalidFilter)
	}
}
