// This file holds the payload validation of the data backend's reads, a
// port of fleetdb's typia validators (docs/wire.md §7.5, §7.7, §10.2, docs/fake.md §3):
// the first value that does not fit the declared TypeScript type fails the
// call with wamp.error.runtime_error and args
// [{"method": "typia.assert", "path": "$input[0].…", "expected": "<type>",
// "value": …}] ("description" instead of "value" when the value is
// undefined). Properties are checked in declaration order; unknown
// properties are allowed, as typia.assert allows them. Serves the
// validation of history.transformed.<t>, history.transformed.<transform>
// and history.transformed.series.<t>.
//
// The types, as fleetdb declares them (type texts are typia's):
//
//	TableQuery  { limit: uint32 ≤ 10000; offset?: uint32;
//	              timeRange?: [string|null, string|null] | [number|null, number|null] | TimeRange;
//	              filterAnd?: FilterNode[]; columns?: string[]; columnPaths?: string[] }
//	SeriesQuery { metrics: SeriesMetric[] (≥ 1); limit: uint32 in 1…10000;
//	              timeRange: as above (required); bucketMs?: number ≥ 1000;
//	              groupBy?: string[]; filterAnd?: FilterNode[] }
//	SeriesMetric { ref: string; method: "AVG"|"SUM"|"COUNT"|"MIN"|"MAX"|"FIRST"|"LAST" }
//	  or, in the seed's shape, a column name with the query's own method
//	  (metrics: ["temperature"], method: "AVG"), answered the same way
//	TimeRange   { start?: string|number|null; end?: string|number|null } (the seed's object form)
//	FilterNode  = FilterPredicate | LatestMarker | FilterGroup
//	FilterPredicate { column: string; operator: <the 15 operators>;
//	                  value?: string|number|boolean|(string|number|boolean)[]; dataType?: string }
//	LatestMarker { latest: true }
//	FilterGroup  { combinator: "AND"|"OR"; filters: FilterNode[] }
//
// A node that carries both group and predicate (or marker) properties
// passes the validator (typia allows extra properties) and is refused
// later with invalid_filter.

package fleetdb

import (
	"math"
	"strconv"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Type texts of the validators, as typia writes them.
const (
	tTableQuery   = "TableQuery"
	tSeriesQuery  = "SeriesQuery"
	tLimit        = `(number & Type<"uint32"> & Maximum<10000>)`
	tSeriesLimit  = `(number & Type<"uint32"> & Minimum<1> & Maximum<10000>)`
	tOffset       = `((number & Type<"uint32">) | undefined)`
	tTimeRange    = `([(null | number), (null | number)] | [(null | string), (null | string)] | TimeRange)`
	tTimeRangeOpt = `([(null | number), (null | number)] | [(null | string), (null | string)] | TimeRange | undefined)`
	tBound        = `(null | number | string | undefined)`
	tFilters      = `(Array<FilterNode> | undefined)`
	tNodes        = `Array<FilterNode>`
	tNode         = `(FilterGroup | FilterPredicate | LatestMarker)`
	tCombinator   = `("AND" | "OR")`
	tOperator     = `("!=" | "<" | "<=" | "<>" | "=" | ">" | ">=" | "ILIKE" | "IN" | "IS" | "IS NOT" | "IS NOT NULL" | "IS NULL" | "LIKE" | "NOT ILIKE" | "NOT IN" | "NOT LIKE")`
	tIsValue      = `(boolean | null | undefined)`
	tValue        = `(Array<boolean | number | string> | boolean | number | string | undefined)`
	tScalar       = `(boolean | number | string)`
	tString       = "string"
	tTrue         = "true"
	tOptString    = `(string | undefined)`
	tStrings      = `(Array<string> | undefined)`
	tMetrics      = `(Array<SeriesMetric> & MinItems<1>)`
	tMetric       = "SeriesMetric"
	tMethod       = `("AVG" | "COUNT" | "FIRST" | "LAST" | "MAX" | "MIN" | "SUM")`
	tBucketMs     = `((number & Minimum<1000>) | undefined)`
)

// operators are the filter operators fleetdb accepts, exactly (case
// sensitive).
var operators = map[string]bool{
	"=": true, "!=": true, "<>": true, ">": true, "<": true, ">=": true, "<=": true,
	"LIKE": true, "ILIKE": true, "NOT LIKE": true, "NOT ILIKE": true,
	"IN": true, "NOT IN": true, "IS NULL": true, "IS NOT NULL": true,
	// IS and IS NOT take null, true or false: the seed lists them beside
	// the others, so apps written from it send them.
	"IS": true, "IS NOT": true,
}

// seriesMethods are the aggregation methods of series metrics.
var seriesMethods = map[string]bool{"AVG": true, "SUM": true, "COUNT": true, "MIN": true, "MAX": true, "FIRST": true, "LAST": true}

// readQuery is a validated TableQuery.
type readQuery struct {
	limit, offset int64
	timeRange     any   // nil when absent
	filters       []any // filter nodes, nil when absent
	columns       []string
	hasColumns    bool
	paths         []string
}

// seriesQuery is a validated SeriesQuery.
type seriesQuery struct {
	metrics   []seriesMetricSpec
	limit     int64
	timeRange any
	bucketMs  int64 // 0 when absent
	groupBy   []string
	filters   []any
}

type seriesMetricSpec struct{ ref, method string }

// finiteNumber reports a JavaScript number that typia accepts.
func finiteNumber(v any) bool {
	if !store.IsNumber(v) {
		return false
	}
	f := store.NumberOf(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

func isUint32(v any) bool {
	if !finiteNumber(v) {
		return false
	}
	f := store.NumberOf(v)
	return f == math.Trunc(f) && f >= 0 && f <= math.MaxUint32
}

// arg0 returns the first argument; undefined when there is none.
func arg0(args []any) (v any, undefined bool) {
	if len(args) == 0 {
		return nil, true
	}
	return args[0], false
}

// validateHistory validates the args of a table or transform read.
func validateHistory(args []any) (*readQuery, *fleetError) {
	in, undef := arg0(args)
	m, ok := in.(map[string]any)
	if !ok {
		return nil, typiaError("$input[0]", tTableQuery, in, undef)
	}
	const p = "$input[0]."
	q := &readQuery{}
	lim, has := m["limit"]
	if !has || !isUint32(lim) || store.NumberOf(lim) > 10000 {
		return nil, typiaError(p+"limit", tLimit, lim, !has)
	}
	q.limit = int64(store.NumberOf(lim))
	if v, has := m["offset"]; has {
		if !isUint32(v) {
			return nil, typiaError(p+"offset", tOffset, v, false)
		}
		q.offset = int64(store.NumberOf(v))
	}
	if v, has := m["timeRange"]; has {
		if err := checkTimeRange(p+"timeRange", v, tTimeRangeOpt); err != nil {
			return nil, err
		}
		q.timeRange = v
	}
	if v, has := m["filterAnd"]; has {
		nodes, err := checkNodes(p+"filterAnd", v, tFilters)
		if err != nil {
			return nil, err
		}
		q.filters = nodes
	}
	var err *fleetError
	if q.columns, q.hasColumns, err = checkStrings(m, "columns", p); err != nil {
		return nil, err
	}
	if q.paths, _, err = checkStrings(m, "columnPaths", p); err != nil {
		return nil, err
	}
	return q, nil
}

// validateSeries validates the args of a series read.
func validateSeries(args []any) (*seriesQuery, *fleetError) {
	in, undef := arg0(args)
	m, ok := in.(map[string]any)
	if !ok {
		return nil, typiaError("$input[0]", tSeriesQuery, in, undef)
	}
	const p = "$input[0]."
	q := &seriesQuery{}
	metrics, has := m["metrics"]
	list, ok := metrics.([]any)
	if !has || !ok || len(list) == 0 {
		return nil, typiaError(p+"metrics", tMetrics, metrics, !has)
	}
	for i, e := range list {
		mp := p + "metrics[" + strconv.Itoa(i) + "]"
		if ref, isName := e.(string); isName {
			// The seed's shape: metrics are column names and one method
			// applies to all of them.
			method, has := m["method"]
			ms, ok := method.(string)
			if !ok || !seriesMethods[ms] {
				return nil, typiaError(p+"method", tMethod, method, !has)
			}
			q.metrics = append(q.metrics, seriesMetricSpec{ref: ref, method: ms})
			continue
		}
		mm, ok := e.(map[string]any)
		if !ok {
			return nil, typiaError(mp, tMetric, e, false)
		}
		ref, has := mm["ref"]
		rs, ok := ref.(string)
		if !ok {
			return nil, typiaError(mp+".ref", tString, ref, !has)
		}
		method, has := mm["method"]
		ms, ok := method.(string)
		if !ok || !seriesMethods[ms] {
			return nil, typiaError(mp+".method", tMethod, method, !has)
		}
		q.metrics = append(q.metrics, seriesMetricSpec{ref: rs, method: ms})
	}
	lim, has := m["limit"]
	if !has || !isUint32(lim) || store.NumberOf(lim) < 1 || store.NumberOf(lim) > 10000 {
		return nil, typiaError(p+"limit", tSeriesLimit, lim, !has)
	}
	q.limit = int64(store.NumberOf(lim))
	tr, has := m["timeRange"]
	if !has {
		return nil, typiaError(p+"timeRange", tTimeRange, nil, true)
	}
	if err := checkTimeRange(p+"timeRange", tr, tTimeRange); err != nil {
		return nil, err
	}
	q.timeRange = tr
	if v, has := m["bucketMs"]; has {
		if !finiteNumber(v) || store.NumberOf(v) < 1000 {
			return nil, typiaError(p+"bucketMs", tBucketMs, v, false)
		}
		q.bucketMs = int64(math.Floor(store.NumberOf(v)))
	}
	var err *fleetError
	if q.groupBy, _, err = checkStrings(m, "groupBy", p); err != nil {
		return nil, err
	}
	if v, has := m["filterAnd"]; has {
		if q.filters, err = checkNodes(p+"filterAnd", v, tFilters); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// checkTimeRange accepts [start, end] with both bounds strings or null, or
// both numbers or null, and the object {start?, end?}.
func checkTimeRange(path string, v any, expected string) *fleetError {
	switch x := v.(type) {
	case []any:
		if len(x) != 2 {
			return typiaError(path, expected, v, false)
		}
		strs, nums := true, true
		for _, b := range x {
			_, isStr := b.(string)
			strs = strs && (b == nil || isStr)
			nums = nums && (b == nil || finiteNumber(b))
		}
		if !strs && !nums {
			return typiaError(path, expected, v, false)
		}
		return nil
	case map[string]any:
		for _, k := range []string{"start", "end"} {
			b, has := x[k]
			if !has || b == nil || finiteNumber(b) {
				continue
			}
			if _, ok := b.(string); !ok {
				return typiaError(path+"."+k, tBound, b, false)
			}
		}
		return nil
	}
	return typiaError(path, expected, v, false)
}

// checkStrings checks an optional string array property.
func checkStrings(m map[string]any, key, prefix string) ([]string, bool, *fleetError) {
	v, has := m[key]
	if !has {
		return nil, false, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false, typiaError(prefix+key, tStrings, v, false)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false, typiaError(prefix+key+"["+strconv.Itoa(i)+"]", tString, e, false)
		}
		out[i] = s
	}
	return out, true, nil
}

// checkNodes checks a list of filter nodes.
func checkNodes(path string, v any, expected string) ([]any, *fleetError) {
	list, ok := v.([]any)
	if !ok {
		return nil, typiaError(path, expected, v, false)
	}
	for i, n := range list {
		if err := checkNode(path+"["+strconv.Itoa(i)+"]", n); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// checkNode checks one filter node against the union of its three shapes,
// choosing the shape by the properties present.
func checkNode(path string, v any) *fleetError {
	m, ok := v.(map[string]any)
	if !ok {
		return typiaError(path, tNode, v, false)
	}
	_, hasComb := m["combinator"]
	_, hasFilters := m["filters"]
	_, hasCol := m["column"]
	_, hasOp := m["operator"]
	latest, hasLatest := m["latest"]
	switch {
	case hasComb || hasFilters:
		c, has := m["combinator"]
		if c != "AND" && c != "OR" {
			return typiaError(path+".combinator", tCombinator, c, !has)
		}
		f, has := m["filters"]
		if !has {
			return typiaError(path+".filters", tNodes, nil, true)
		}
		_, err := checkNodes(path+".filters", f, tNodes)
		return err
	case hasCol || hasOp:
		col, has := m["column"]
		if _, ok := col.(string); !ok {
			return typiaError(path+".column", tString, col, !has)
		}
		op, has := m["operator"]
		if s, ok := op.(string); !ok || !operators[s] {
			return typiaError(path+".operator", tOperator, op, !has)
		}
		if op == "IS" || op == "IS NOT" {
			switch val := m["value"]; val.(type) {
			case nil, bool:
			default:
				return typiaError(path+".value", tIsValue, val, false)
			}
		} else if val, has := m["value"]; has {
			if list, ok := val.([]any); ok {
				for i, e := range list {
					if !isScalar(e) {
						return typiaError(path+".value["+strconv.Itoa(i)+"]", tScalar, e, false)
					}
				}
			} else if !isScalar(val) {
				return typiaError(path+".value", tValue, val, false)
			}
		}
		if dt, has := m["dataType"]; has {
			if _, ok := dt.(string); !ok {
				return typiaError(path+".dataType", tOptString, dt, false)
			}
		}
		return nil
	case hasLatest:
		if latest != true {
			return typiaError(path+".latest", tTrue, latest, false)
		}
		return nil
	}
	return typiaError(path, tNode, v, false)
}

// isScalar reports a string, finite number or boolean.
func isScalar(v any) bool {
	switch v.(type) {
	case string, bool:
		return true
	}
	return finiteNumber(v)
}
