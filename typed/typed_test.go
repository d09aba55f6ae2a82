// This file tests the parts of the package that need no platform: filters
// and queries in their wire form, messages, secret and JSON values.

package typed

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/secrets"
)

type row struct{}

var (
	temp  = NewNumberColumn[row, float64]("temperature")
	count = NewNumberColumn[row, int64]("count")
	label = NewStringColumn[row]("label")
	tsp   = NewTimeColumn[row]("tsp")
	on    = NewBoolColumn[row]("on")
	data  = NewJSONColumn[row]("payload")
)

// payload returns the wire form of q.
func payload(t *testing.T, q *Query[row]) map[string]any {
	t.Helper()
	p, err := q.Client().Payload()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pred(col, op string, v any) map[string]any {
	return map[string]any{"column": col, "operator": op, "value": v}
}

func TestQueryWire(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		q    *Query[row]
		want map[string]any
	}{
		{"zero filter", &Query[row]{}, map[string]any{"limit": int64(10), "offset": int64(0)}},
		{"and", &Query[row]{Where: temp.Gt(3).And(label.In("a", "b"), Filter[row]{})}, map[string]any{"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{pred("temperature", ">", 3.0), pred("label", "IN", []any{"a", "b"})}}},
		{"or of ands", &Query[row]{Where: Or(temp.Lt(1).And(on.Eq(true)), count.Ge(2))}, map[string]any{"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{map[string]any{"combinator": "OR", "filters": []any{
				map[string]any{"combinator": "AND", "filters": []any{pred("temperature", "<", 1.0), pred("on", "=", true)}},
				pred("count", ">=", int64(2)),
			}}}}},
		{"or with zero", &Query[row]{Where: temp.Lt(1).Or(Filter[row]{})}, map[string]any{"limit": int64(10), "offset": int64(0)}},
		{"empty in", &Query[row]{Where: label.In()}, map[string]any{"limit": int64(10), "offset": int64(0), "filterAnd": []any{pred("label", "IN", []any{})}}},
		{"times, nulls, like, latest", &Query[row]{Where: And(tsp.Between(at, at.Add(time.Hour)), data.IsNull(), label.ILike("x%"), Latest[row]())},
			map[string]any{"limit": int64(10), "offset": int64(0), "filterAnd": []any{
				pred("tsp", ">=", "2026-01-01T00:00:00Z"), pred("tsp", "<", "2026-01-01T01:00:00Z"),
				map[string]any{"column": "payload", "operator": "IS NULL"}, pred("label", "ILIKE", "x%"), map[string]any{"latest": true},
			}}},
		{"projection", &Query[row]{Limit: 5, Offset: 1, Columns: []Field[row]{temp, data}, ColumnPaths: []JSONPath[row]{data.Path("a.b")}},
			map[string]any{"limit": int64(5), "offset": int64(1), "columns": []any{"temperature", "payload"}, "columnPaths": []any{"payload.a.b"}}},
	} {
		if d := cmp.Diff(tc.want, payload(t, tc.q)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if (*Query[row])(nil).Client() != nil {
		t.Error("a nil query is not nil for the client")
	}
}

func TestSeriesQueryWire(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := SeriesQuery[row]{
		Metrics:   []Measure[row]{temp.Avg(), count.Sum(), label.Count(), tsp.Max(), data.Path("rpm").Avg()},
		Limit:     4,
		TimeRange: client.TimeRange{Start: at},
		Bucket:    time.Hour,
		GroupBy:   []Group[row]{label, data.Path("mode")},
		Where:     on.Eq(true),
	}
	got, err := q.client().Payload()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"metrics": []any{
			map[string]any{"ref": "temperature", "method": "AVG"}, map[string]any{"ref": "count", "method": "SUM"},
			map[string]any{"ref": "label", "method": "COUNT"}, map[string]any{"ref": "tsp", "method": "MAX"},
			map[string]any{"ref": "payload.rpm", "method": "AVG"},
		},
		"limit": int64(4), "timeRange": []any{"2026-01-01T00:00:00Z", nil}, "bucketMs": int64(3600000),
		"groupBy": []any{"label", "payload.mode"}, "filterAnd": []any{pred("on", "=", true)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSeriesRows(t *testing.T) {
	avg, maxT, first := temp.Avg(), tsp.Max(), label.First()
	q := SeriesQuery[row]{Metrics: []Measure[row]{avg, maxT, first}}
	// The platform sends timestamps as ISO 8601 texts; older ones as
	// epoch milliseconds: both read the same.
	iso, err := seriesRows([]client.Row{{"tsp": "2026-01-01T00:00:00.000Z", "AVG:temperature": int64(21), "MAX:tsp": "2026-01-01T00:00:01.000Z", "label": "x", "FIRST:label": nil}}, q)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := seriesRows([]client.Row{{"tsp": int64(1767225600000), "AVG:temperature": int64(21), "MAX:tsp": int64(1767225601000), "label": "x", "FIRST:label": nil}}, q)
	if err != nil {
		t.Fatal(err)
	}
	if !iso[0].Tsp.Equal(rows[0].Tsp) || !rows[0].Tsp.Equal(time.UnixMilli(1767225600000)) {
		t.Errorf("bucket start %v (ISO) and %v (epoch ms)", iso[0].Tsp, rows[0].Tsp)
	}
	if v, ok := maxT.Of(iso[0]); !ok || !v.Equal(time.UnixMilli(1767225601000)) {
		t.Errorf("MAX:tsp of the ISO row = %v, %v", v, ok)
	}
	b := rows[0]
	if v, ok := avg.Of(b); !ok || v != 21 {
		t.Errorf("AVG = %v, %v", v, ok)
	}
	if v, ok := maxT.Of(b); !ok || !v.Equal(time.UnixMilli(1767225601000)) {
		t.Errorf("MAX:tsp = %v, %v", v, ok)
	}
	if _, ok := first.Of(b); ok {
		t.Error("FIRST of NULL is ok")
	}
	if v, ok := label.Of(b); !ok || v != "x" {
		t.Errorf("group label = %q, %v", v, ok)
	}
	if _, err := seriesRows([]client.Row{{"tsp": int64(0), "AVG:temperature": "hot"}}, q); err == nil {
		t.Error("a metric of the wrong type is no error")
	}
}

func TestMessageSet(t *testing.T) {
	var m Message
	m.Row(2)["tsp"] = "t"
	m.Set([]string{"args", "0", "sensor", "vibration"}, 0.5)
	m.Set([]string{"args", "0", "sensor", "rms"}, 1.5)
	m.Set([]string{"args", "2", "tsp"}, "u")
	m.Set([]string{"kwargs", "DEVICE_NAME"}, "press")
	m.Set([]string{"args", "0", "list", "0"}, "digits are object keys")
	want := Message{
		Args: []any{
			map[string]any{"tsp": "t", "sensor": map[string]any{"vibration": 0.5, "rms": 1.5}, "list": map[string]any{"0": "digits are object keys"}},
			nil,
			map[string]any{"tsp": "u"},
		},
		Kwargs: map[string]any{"DEVICE_NAME": "press"},
	}
	if d := cmp.Diff(want, m); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var args Message
	args.Set([]string{"args", "1"}, "second")
	if d := cmp.Diff([]any{nil, "second"}, args.Args); d != "" {
		t.Errorf("args[1] (-want +got):\n%s", d)
	}
	for _, bad := range [][]string{{"args"}, {"details", "x"}, {"args", "x", "y"}, {"args", "0", "tsp", "deeper"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set(%q) did not panic", bad)
				}
			}()
			m.Set(bad, 1)
		}()
	}
}

func TestSecretValues(t *testing.T) {
	for _, tc := range []struct {
		in    any
		want  secrets.Value
		fails bool
	}{
		{nil, secrets.Keep(), false}, {secrets.Placeholder, secrets.Keep(), false},
		{"sk-1", secrets.Set("sk-1"), false}, {"", secrets.Set(""), false}, {int64(1), secrets.Keep(), true},
	} {
		got, err := DecodeSecret(tc.in, "api_key")
		if (err != nil) != tc.fails || got.String() != tc.want.String() {
			t.Errorf("DecodeSecret(%#v) = %v, %v", tc.in, got, err)
		}
		if p, _ := got.Plaintext(); !tc.fails && p != func() string { p, _ := tc.want.Plaintext(); return p }() {
			t.Errorf("DecodeSecret(%#v) plaintext %q", tc.in, p)
		}
	}
	for _, tc := range []struct {
		in    secrets.Value
		v     any
		write bool
	}{{secrets.Keep(), nil, false}, {secrets.Clear(), nil, true}, {secrets.Set("x"), "x", true}} {
		if v, w := EncodeSecret(tc.in); v != tc.v || w != tc.write {
			t.Errorf("EncodeSecret(%v) = %v, %v", tc.in, v, w)
		}
	}
}

func TestJSONAndTsp(t *testing.T) {
	v, err := EncodeJSON(json.RawMessage(`{"a":[1,2.5,"x"]}`), "payload")
	if d := cmp.Diff(map[string]any{"a": []any{int64(1), 2.5, "x"}}, v); err != nil || d != "" {
		t.Errorf("EncodeJSON: %v (-want +got):\n%s", err, d)
	}
	if _, err := EncodeJSON(json.RawMessage(`{`), "payload"); err == nil {
		t.Error("invalid JSON encoded")
	}
	raw, err := DecodeJSON(map[string]any{"b": true, "a": int64(1)}, "payload")
	if err != nil || string(raw) != `{"a":1,"b":true}` {
		t.Errorf("DecodeJSON = %s, %v", raw, err)
	}
	if _, err := EncodeTsp(time.Time{}); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("EncodeTsp(zero) = %v", err)
	}
	if s, err := EncodeTsp(time.Date(2026, 1, 1, 0, 0, 0, 5e6, time.UTC)); err != nil || s != "2026-01-01T00:00:00.005Z" {
		t.Errorf("EncodeTsp = %q, %v", s, err)
	}
}

func TestPtr(t *testing.T) {
	p := Ptr(21.5)
	if *p != 21.5 {
		t.Errorf("Ptr = %v", *p)
	}
}
