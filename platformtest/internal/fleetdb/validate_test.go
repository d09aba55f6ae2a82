package fleetdb

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
)

// typia builds the expected runtime_error object of a failed typia.assert.
func typia(path, expected string, value ...any) []any {
	obj := map[string]any{"method": "typia.assert", "path": path, "expected": expected}
	if len(value) == 0 {
		obj["description"] = typiaUndefined
	} else {
		obj["value"] = value[0]
	}
	return []any{obj}
}

// TestValidationErrors: every path of the typia validators of history and
// series reads, with the exact error objects.
func TestValidationErrors(t *testing.T) { eachStore(t, testValidationErrors) }

func testValidationErrors(t *testing.T, s unitStore) {
	_, b := newUnitDB(t, s)
	node := func(n any) map[string]any { return q("limit", 1, "filterAnd", list(n)) }
	cases := []struct {
		name string
		proc string
		args wamp.List
		want []any
	}{
		{"no args", "sensordata", nil, typia("$input[0]", tTableQuery)},
		{"not an object", "sensordata", wamp.List{"x"}, typia("$input[0]", tTableQuery, "x")},
		{"null", "sensordata", wamp.List{nil}, typia("$input[0]", tTableQuery, nil)},
		{"list", "sensordata", wamp.List{list(1)}, typia("$input[0]", tTableQuery, list(int64(1)))},
		{"no limit", "sensordata", wamp.List{q("offset", 0)}, typia("$input[0].limit", tLimit)},
		{"negative limit", "sensordata", wamp.List{q("limit", -1, "offset", -1)}, typia("$input[0].limit", tLimit, int64(-1))},
		{"fractional limit", "sensordata", wamp.List{q("limit", 1.5)}, typia("$input[0].limit", tLimit, 1.5)},
		{"limit 10001", "sensordata", wamp.List{q("limit", 10001)}, typia("$input[0].limit", tLimit, int64(10001))},
		{"limit text", "sensordata", wamp.List{q("limit", "10")}, typia("$input[0].limit", tLimit, "10")},
		{"limit null", "sensordata", wamp.List{q("limit", nil)}, typia("$input[0].limit", tLimit, nil)},
		{"offset null", "sensordata", wamp.List{q("limit", 1, "offset", nil)}, typia("$input[0].offset", tOffset, nil)},
		{"offset negative", "sensordata", wamp.List{q("limit", 1, "offset", -2)}, typia("$input[0].offset", tOffset, int64(-2))},
		{"offset over uint32", "sensordata", wamp.List{q("limit", 1, "offset", int64(1)<<32)}, typia("$input[0].offset", tOffset, int64(1)<<32)},
		{"timeRange text", "sensordata", wamp.List{q("limit", 1, "timeRange", "today")}, typia("$input[0].timeRange", tTimeRangeOpt, "today")},
		{"timeRange null", "sensordata", wamp.List{q("limit", 1, "timeRange", nil)}, typia("$input[0].timeRange", tTimeRangeOpt, nil)},
		{"timeRange one bound", "sensordata", wamp.List{q("limit", 1, "timeRange", list("2026-01-01"))}, typia("$input[0].timeRange", tTimeRangeOpt, list("2026-01-01"))},
		{"timeRange mixed", "sensordata", wamp.List{q("limit", 1, "timeRange", list("2026-01-01", 5))}, typia("$input[0].timeRange", tTimeRangeOpt, list("2026-01-01", int64(5)))},
		{"timeRange bool", "sensordata", wamp.List{q("limit", 1, "timeRange", list(true, nil))}, typia("$input[0].timeRange", tTimeRangeOpt, list(true, nil))},
		{"timeRange object", "sensordata", wamp.List{q("limit", 1, "timeRange", q("start", true))}, typia("$input[0].timeRange.start", tBound, true)},
		{"filterAnd object", "sensordata", wamp.List{q("limit", 1, "filterAnd", q())}, typia("$input[0].filterAnd", tFilters, map[string]any{})},
		{"filterAnd null", "sensordata", wamp.List{q("limit", 1, "filterAnd", nil)}, typia("$input[0].filterAnd", tFilters, nil)},
		{"node number", "sensordata", wamp.List{node(1)}, typia("$input[0].filterAnd[0]", tNode, int64(1))},
		{"node empty", "sensordata", wamp.List{node(q())}, typia("$input[0].filterAnd[0]", tNode, map[string]any{})},
		{"column number", "sensordata", wamp.List{node(q("column", 1, "operator", "="))}, typia("$input[0].filterAnd[0].column", tString, int64(1))},
		{"no operator", "sensordata", wamp.List{node(q("column", "n"))}, typia("$input[0].filterAnd[0].operator", tOperator)},
		{"lower-case operator", "sensordata", wamp.List{node(pred("n", "like", "x"))}, typia("$input[0].filterAnd[0].operator", tOperator, "like")},
		{"IS with a number", "sensordata", wamp.List{node(pred("n", "IS", 5))}, typia("$input[0].filterAnd[0].value", tIsValue, int64(5))},
		{"lower-case IS", "sensordata", wamp.List{node(pred("n", "is", nil))}, typia("$input[0].filterAnd[0].operator", tOperator, "is")},
		{"null value", "sensordata", wamp.List{node(pred("n", "=", nil))}, typia("$input[0].filterAnd[0].value", tValue, nil)},
		{"object value", "sensordata", wamp.List{node(pred("n", "=", q("a", 1)))}, typia("$input[0].filterAnd[0].value", tValue, map[string]any{"a": int64(1)})},
		{"null in list", "sensordata", wamp.List{node(pred("n", "IN", list(1, nil)))}, typia("$input[0].filterAnd[0].value[1]", tScalar, nil)},
		{"nested list", "sensordata", wamp.List{node(pred("n", "IN", list(list(1))))}, typia("$input[0].filterAnd[0].value[0]", tScalar, list(int64(1)))},
		{"dataType", "sensordata", wamp.List{node(q("column", "n", "operator", "=", "value", 1, "dataType", 1))}, typia("$input[0].filterAnd[0].dataType", tOptString, int64(1))},
		{"latest false", "sensordata", wamp.List{node(q("latest", false))}, typia("$input[0].filterAnd[0].latest", tTrue, false)},
		{"combinator", "sensordata", wamp.List{node(q("combinator", "XOR", "filters", list()))}, typia("$input[0].filterAnd[0].combinator", tCombinator, "XOR")},
		{"lower-case combinator", "sensordata", wamp.List{node(q("combinator", "and", "filters", list()))}, typia("$input[0].filterAnd[0].combinator", tCombinator, "and")},
		{"no filters", "sensordata", wamp.List{node(q("combinator", "AND"))}, typia("$input[0].filterAnd[0].filters", tNodes)},
		{"filters without combinator", "sensordata", wamp.List{node(q("filters", list()))}, typia("$input[0].filterAnd[0].combinator", tCombinator)},
		{"nested node", "sensordata", wamp.List{node(q("combinator", "OR", "filters", list(pred("n", "=", 1), q("combinator", "AND", "filters", list(5)))))},
			typia("$input[0].filterAnd[0].filters[1].filters[0]", tNode, int64(5))},
		{"columns text", "sensordata", wamp.List{q("limit", 1, "columns", "n")}, typia("$input[0].columns", tStrings, "n")},
		{"column number", "sensordata", wamp.List{q("limit", 1, "columns", list("n", 1))}, typia("$input[0].columns[1]", tString, int64(1))},
		{"columnPaths null", "sensordata", wamp.List{q("limit", 1, "columnPaths", list(nil))}, typia("$input[0].columnPaths[0]", tString, nil)},
		{"transform", "sensordata_hourly", wamp.List{q("limit", -5)}, typia("$input[0].limit", tLimit, int64(-5))},

		{"series no args", "series.sensordata", nil, typia("$input[0]", tSeriesQuery)},
		{"series no metrics", "series.sensordata", wamp.List{q("limit", 1)}, typia("$input[0].metrics", tMetrics)},
		{"series empty metrics", "series.sensordata", wamp.List{q("metrics", list(), "limit", 1)}, typia("$input[0].metrics", tMetrics, list())},
		{"series seed shape without method", "series.sensordata", wamp.List{q("metrics", list("temperature"), "limit", 100,
			"timeRange", list("2026-01-01T00:00:00Z", nil))}, typia("$input[0].method", tMethod)},
		{"series metric number", "series.sensordata", wamp.List{q("metrics", list(5), "method", "AVG")}, typia("$input[0].metrics[0]", tMetric, int64(5))},
		{"series ref", "series.sensordata", wamp.List{q("metrics", list(q("ref", 1, "method", "AVG")))}, typia("$input[0].metrics[0].ref", tString, int64(1))},
		{"series no method", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n")))}, typia("$input[0].metrics[0].method", tMethod)},
		{"series lower-case method", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "avg")))}, typia("$input[0].metrics[0].method", tMethod, "avg")},
		{"series no limit", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")))}, typia("$input[0].limit", tSeriesLimit)},
		{"series limit 0", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 0)}, typia("$input[0].limit", tSeriesLimit, int64(0))},
		{"series limit 10001", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 10001)}, typia("$input[0].limit", tSeriesLimit, int64(10001))},
		{"series no timeRange", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1)}, typia("$input[0].timeRange", tTimeRange)},
		{"series timeRange null", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1, "timeRange", nil)}, typia("$input[0].timeRange", tTimeRange, nil)},
		{"series bucketMs", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1,
			"timeRange", list(0, nil), "bucketMs", 999)}, typia("$input[0].bucketMs", tBucketMs, int64(999))},
		{"series bucketMs text", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1,
			"timeRange", list(0, nil), "bucketMs", "1000")}, typia("$input[0].bucketMs", tBucketMs, "1000")},
		{"series groupBy", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1,
			"timeRange", list(0, nil), "groupBy", "device_key")}, typia("$input[0].groupBy", tStrings, "device_key")},
		{"series filter", "series.sensordata", wamp.List{q("metrics", list(q("ref", "n", "method", "SUM")), "limit", 1,
			"timeRange", list(0, nil), "filterAnd", list(pred("n", "~", 1)))}, typia("$input[0].filterAnd[0].operator", tOperator, "~")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := serve(b, "history.transformed."+tc.proc, tc.args)
			if r.Err != wire.ErrRuntimeError {
				t.Fatalf("%s: got %q %v, want %s", tc.name, r.Err, r.Args, wire.ErrRuntimeError)
			}
			if diff := cmp.Diff(tc.want, wirevalue.CloneList(r.Args)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
