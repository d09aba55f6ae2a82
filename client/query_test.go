// This file tests the wire form of history and series queries, the
// reassembly of chunked rows and table names.

package client

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func noWarn(string) {}

func TestQueryWire(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		q    *Query
		want map[string]any
	}{
		{"nil query is the default", nil, map[string]any{"limit": int64(10), "offset": int64(0)}},
		{"worked example of WIRE 2.4", &Query{
			Limit: 5, Offset: 2,
			TimeRange: &TimeRange{Start: "2026-01-01T00:00:00Z"},
			FilterAnd: []Filter{Where("temperature", ">", 20), Latest()},
			Columns:   []string{"temperature"},
		}, map[string]any{
			"limit": int64(5), "offset": int64(2),
			"timeRange": []any{"2026-01-01T00:00:00Z", nil},
			"filterAnd": []any{
				map[string]any{"column": "temperature", "operator": ">", "value": int64(20)},
				map[string]any{"latest": true},
			},
			"columns": []any{"temperature"},
		}},
		{"times and groups", &Query{
			TimeRange: Between(start, start.Add(time.Hour)),
			FilterAnd: []Filter{Or(Where("source", "like", "lab%"), IsNull("source")), Where("n", "in", []int{1, 2}), Where("k", "not in", []string(nil))},
		}, map[string]any{
			"limit": int64(10), "offset": int64(0),
			"timeRange": []any{"2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"},
			"filterAnd": []any{
				map[string]any{"combinator": "OR", "filters": []any{
					map[string]any{"column": "source", "operator": "LIKE", "value": "lab%"},
					map[string]any{"column": "source", "operator": "IS NULL"},
				}},
				map[string]any{"column": "n", "operator": "IN", "value": []any{int64(1), int64(2)}},
				map[string]any{"column": "k", "operator": "NOT IN", "value": []any{}},
			},
		}},
		{"seed IS with nil", &Query{FilterAnd: []Filter{Where("a", "IS", nil), Where("b", "is not", nil)}}, map[string]any{
			"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{
				map[string]any{"column": "a", "operator": "IS NULL"},
				map[string]any{"column": "b", "operator": "IS NOT NULL"},
			},
		}},
		{"seed IS and IS NOT with booleans", &Query{FilterAnd: []Filter{Where("ok", "IS", true), Where("ok", " is  not ", false), Or(Where("on", "IS NOT", true), Where("on", "IS", false))}}, map[string]any{
			"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{
				map[string]any{"column": "ok", "operator": "IS", "value": true},
				map[string]any{"column": "ok", "operator": "IS NOT", "value": false},
				map[string]any{"combinator": "OR", "filters": []any{
					map[string]any{"column": "on", "operator": "IS NOT", "value": true},
					map[string]any{"column": "on", "operator": "IS", "value": false},
				}},
			},
		}},
		{"IS NULL and IS NOT NULL as before", &Query{FilterAnd: []Filter{IsNull("a"), IsNotNull("b"), Where("c", "=", nil), Where("d", "<>", nil)}}, map[string]any{
			"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{
				map[string]any{"column": "a", "operator": "IS NULL"},
				map[string]any{"column": "b", "operator": "IS NOT NULL"},
				map[string]any{"column": "c", "operator": "IS NULL"},
				map[string]any{"column": "d", "operator": "IS NOT NULL"},
			},
		}},
		{"epoch ms bounds", &Query{TimeRange: &TimeRange{Start: int64(1767225600000), End: nil}}, map[string]any{
			"limit": int64(10), "offset": int64(0), "timeRange": []any{int64(1767225600000), nil},
		}},
		{"legacy latest_flag passes", &Query{FilterAnd: []Filter{Where("latest_flag", "=", true)}}, map[string]any{
			"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{map[string]any{"column": "latest_flag", "operator": "=", "value": true}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.q.wire("GetHistory", "t", MaxHistoryLimit, noWarn)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueryRefused(t *testing.T) {
	cases := []struct {
		name  string
		q     *Query
		field string
	}{
		{"limit too high", &Query{Limit: 10001}, "limit"},
		{"negative limit", &Query{Limit: -1}, "limit"},
		{"negative offset", &Query{Offset: -1}, "offset"},
		{"mixed bounds", &Query{TimeRange: &TimeRange{Start: "2026-01-01", End: 5}}, "timeRange"},
		{"NaN bound", &Query{TimeRange: &TimeRange{Start: math.NaN()}}, "timeRange"},
		{"Feb 30", &Query{TimeRange: &TimeRange{Start: "2026-02-30"}}, "timeRange"},
		{"basic format", &Query{TimeRange: &TimeRange{Start: "20260701T123000Z"}}, "timeRange"},
		{"24:30", &Query{TimeRange: &TimeRange{Start: "2026-07-01T24:30"}}, "timeRange"},
		{"hour-only offset", &Query{TimeRange: &TimeRange{Start: "2026-07-01T12:00+01"}}, "timeRange"},
		{"space for year 50", &Query{TimeRange: &TimeRange{Start: "0050-01-01 10:00"}}, "timeRange"},
		{"IS NULL with value", &Query{FilterAnd: []Filter{{column: "a", op: "IS NULL", value: 1}}}, "filterAnd"},
		{"IS with a string", &Query{FilterAnd: []Filter{Where("a", "IS", "true")}}, "filterAnd"},
		{"IS NOT with a number", &Query{FilterAnd: []Filter{Where("a", "IS NOT", 1)}}, "filterAnd"},
		{"list with comparison", &Query{FilterAnd: []Filter{Where("a", "=", []int{1})}}, "filterAnd"},
		{"null in IN", &Query{FilterAnd: []Filter{Where("a", "IN", []any{1, nil})}}, "filterAnd"},
		{"null with >", &Query{FilterAnd: []Filter{Where("a", ">", nil)}}, "filterAnd"},
		{"empty group", &Query{FilterAnd: []Filter{Or()}}, "filterAnd"},
		{"blank column name", &Query{Columns: []string{"a", " "}}, "columns"},
		{"empty filter column", &Query{FilterAnd: []Filter{Where("", "=", 1)}}, "filterAnd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.q.wire("GetHistory", "t", MaxHistoryLimit, noWarn)
			var oe *OpError
			if !errors.Is(err, ErrInvalidArgument) || !errors.As(err, &oe) || oe.URI != tc.field {
				t.Fatalf("err = %v, want ErrInvalidArgument naming %q", err, tc.field)
			}
		})
	}
}

func TestQueryAcceptsDates(t *testing.T) {
	for _, s := range []string{"2026", "2026-07", "2026-07-01", "2026-07-01T12:30", "2026-07-01t12:30:15.123456z", "2026-07-01 12:30:00+02:00", "2026-07-01T12:30:00-0530", "2026-07-01T24:00:00.000", "2024-02-29", "+010000-01-01T00:00:00Z"} {
		if err := checkISODate(s); err != nil {
			t.Errorf("checkISODate(%q) = %v", s, err)
		}
	}
	if got := formatBound(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); got != "+010000-01-01T00:00:00Z" {
		t.Errorf("formatBound(year 10000) = %q", got)
	}
}

func TestUnknownOperatorWarns(t *testing.T) {
	var warned []string
	got, err := (&Query{FilterAnd: []Filter{Where("a", "SIMILAR TO", "x")}}).wire("GetHistory", "t", MaxHistoryLimit, func(s string) { warned = append(warned, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || got["filterAnd"].([]any)[0].(map[string]any)["operator"] != "SIMILAR TO" {
		t.Errorf("warned %v, payload %v", warned, got)
	}
}

func TestSeriesWire(t *testing.T) {
	q := SeriesQuery{
		Metrics:   []Metric{{Ref: "temperature", Method: AVG}},
		Columns:   []string{"n"},
		Method:    MAX,
		Limit:     100,
		TimeRange: TimeRange{Start: "2026-01-01T00:00:00Z", End: "2026-02-01T00:00:00Z"},
		Bucket:    time.Hour,
		GroupBy:   []string{"device_key"},
	}
	got, err := q.wire("GetSeriesHistory", noWarn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metrics":   []any{map[string]any{"ref": "temperature", "method": "AVG"}, map[string]any{"ref": "n", "method": "MAX"}},
		"limit":     int64(100),
		"timeRange": []any{"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"},
		"bucketMs":  int64(3600000),
		"groupBy":   []any{"device_key"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	refused := map[string]SeriesQuery{
		"latest":         {Metrics: []Metric{{"t", AVG}}, Limit: 1, TimeRange: TimeRange{Start: 1}, FilterAnd: []Filter{Latest()}},
		"latest in or":   {Metrics: []Metric{{"t", AVG}}, Limit: 1, TimeRange: TimeRange{Start: 1}, FilterAnd: []Filter{Or(Where("latest_flag", "=", "true"))}},
		"lower method":   {Metrics: []Metric{{"t", "avg"}}, Limit: 1, TimeRange: TimeRange{Start: 1}},
		"no metric":      {Limit: 1, TimeRange: TimeRange{Start: 1}},
		"limit 10001":    {Metrics: []Metric{{"t", AVG}}, Limit: 10001, TimeRange: TimeRange{Start: 1}},
		"bucket too low": {Metrics: []Metric{{"t", AVG}}, Limit: 1, TimeRange: TimeRange{Start: 1}, Bucket: 999 * time.Millisecond},
		"bucket not ms":  {Metrics: []Metric{{"t", AVG}}, Limit: 1, TimeRange: TimeRange{Start: 1}, Bucket: time.Second + time.Microsecond},
		"long name":      {Metrics: []Metric{{strings.Repeat("x", 60), AVG}}, Limit: 1, TimeRange: TimeRange{Start: 1}},
	}
	for name, q := range refused {
		if _, err := q.wire("GetSeriesHistory", noWarn); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", name, err)
		}
	}
}

// TestSeriesOpenStart: a series range without start travels as
// [null, end] (from the table's first row), or [null, null] for the zero
// TimeRange; a start alone keeps [start, null].
func TestSeriesOpenStart(t *testing.T) {
	end := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		tr   TimeRange
		want []any
	}{
		"until a time":   {TimeRange{End: end}, []any{nil, "2026-02-01T00:00:00Z"}},
		"until epoch ms": {TimeRange{End: int64(1769904000000)}, []any{nil, int64(1769904000000)}},
		"*Until":         {*Until(end), []any{nil, "2026-02-01T00:00:00Z"}},
		"both open":      {TimeRange{}, []any{nil, nil}},
		"since":          {*Since(end), []any{"2026-02-01T00:00:00Z", nil}},
	}
	for name, tc := range cases {
		q := SeriesQuery{Metrics: []Metric{{"t", AVG}}, Limit: 10, TimeRange: tc.tr}
		got, err := q.wire("GetSeriesHistory", noWarn)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got["timeRange"]); diff != "" {
			t.Errorf("%s: timeRange (-want +got):\n%s", name, diff)
		}
	}
}

func TestAssembleRows(t *testing.T) {
	r := func(n int64) any { return map[string]any{"n": n} }
	summary := func(count, total any, order string) *Result {
		return &Result{Args: []any{map[string]any{"chunked": true, "chunkCount": count, "totalRows": total, "order": order}}}
	}
	chunk := func(i any, rows ...any) *Result { return &Result{Args: []any{i, rows}} }
	ns := func(rows []Row) []int64 {
		var out []int64
		for _, row := range rows {
			out = append(out, row["n"].(int64))
		}
		return out
	}
	// Rows inside each chunk are newest first; "asc" reverses the whole.
	rows, err := assembleRows(summary(int64(2), int64(4), "asc"), []*Result{chunk(1.0, r(2), r(1)), chunk(int64(0), r(4), r(3))})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4}, ns(rows)); diff != "" {
		t.Errorf("asc reassembly (-want +got):\n%s", diff)
	}
	rows, err = assembleRows(summary(int64(2), int64(3), "desc"), []*Result{chunk(int64(0), r(3), r(2)), chunk(int64(1), r(1))})
	if err != nil || !cmp.Equal([]int64{3, 2, 1}, ns(rows)) {
		t.Errorf("desc reassembly = %v, %v", ns(rows), err)
	}
	plain, err := assembleRows(&Result{Args: []any{[]any{r(1)}}}, nil)
	if err != nil || len(plain) != 1 {
		t.Errorf("plain = %v, %v", plain, err)
	}
	empty, err := assembleRows(&Result{}, nil)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("no value must be no rows: %v, %v", empty, err)
	}
	bad := map[string]struct {
		final  *Result
		chunks []*Result
	}{
		"duplicate chunk":        {summary(int64(2), int64(2), "asc"), []*Result{chunk(int64(0), r(1)), chunk(int64(0), r(2))}},
		"missing chunk":          {summary(int64(2), int64(1), "asc"), []*Result{chunk(int64(0), r(1))}},
		"count mismatch":         {summary(int64(1), int64(5), "asc"), []*Result{chunk(int64(0), r(1))}},
		"fractional index":       {summary(int64(1), int64(1), "asc"), []*Result{chunk(0.5, r(1))}},
		"unknown order":          {summary(int64(1), int64(1), "sideways"), []*Result{chunk(int64(0), r(1))}},
		"progress, no summary":   {&Result{Args: []any{[]any{}}}, []*Result{chunk(int64(0), r(1))}},
		"not a list":             {&Result{Args: []any{"rows"}}, nil},
		"row is not an object":   {&Result{Args: []any{[]any{1}}}, nil},
		"index beyond the count": {summary(int64(1), int64(1), "asc"), []*Result{chunk(int64(3), r(1))}},
	}
	for name, tc := range bad {
		if _, err := assembleRows(tc.final, tc.chunks); err == nil || !strings.Contains(err.Error(), "unexpected result") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestWriteTableNames(t *testing.T) {
	ok := []string{"sensordata", " padded ", "tëmperatur", "-a-", "a_b", strings.Repeat("x", 100)}
	for _, n := range ok {
		if _, err := checkWriteTable("PublishToTable", n); err != nil {
			t.Errorf("%q refused: %v", n, err)
		}
	}
	bad := []string{"", "   ", strings.Repeat("x", 101), "a.b", "a/b", "___", "--", "a b"}
	for _, n := range bad {
		if _, err := checkWriteTable("PublishToTable", n); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%q accepted: %v", n, err)
		}
	}
}
