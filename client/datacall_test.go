// This file tests the API satellites use to call the data backend:
// Query.Payload, SeriesQuery.Payload and Client.CallData, end to end
// against the fake.

package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func TestQueryPayload(t *testing.T) {
	var nilQuery *client.Query
	got, err := nilQuery.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"limit": int64(10), "offset": int64(0)}, got); diff != "" {
		t.Errorf("nil query (-want +got):\n%s", diff)
	}
	got["column"] = "api_key" // the map is the caller's
	q := &client.Query{Limit: 101, Offset: 2, TimeRange: &client.TimeRange{Start: t0},
		FilterAnd: []client.Filter{client.Where("n", "~", 3), client.Latest()}, Columns: []string{"n"}, ColumnPaths: []string{"n"}}
	got, err = q.Payload()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"limit": int64(101), "offset": int64(2), "timeRange": []any{"2026-01-01T00:00:00Z", nil},
		"filterAnd": []any{map[string]any{"column": "n", "operator": "~", "value": int64(3)}, map[string]any{"latest": true}},
		"columns":   []any{"n"}, "columnPaths": []any{"n"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("full query, unknown operator as given (-want +got):\n%s", diff)
	}
	if q.Limit != 101 || len(q.FilterAnd) != 2 {
		t.Errorf("query changed: %+v", q)
	}
	for _, bad := range []*client.Query{{Limit: 10001}, {Limit: -1}, {Offset: -1}, {FilterAnd: []client.Filter{client.Where("", "=", 1)}}, {Columns: []string{" "}}} {
		if _, err := bad.Payload(); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%+v: err = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestSeriesQueryPayload(t *testing.T) {
	q := client.SeriesQuery{Metrics: []client.Metric{{Ref: "t", Method: client.MAX}}, Columns: []string{"h"}, Method: client.AVG,
		Limit: 5, TimeRange: client.TimeRange{Start: t0}, Bucket: time.Minute, GroupBy: []string{"room"},
		FilterAnd: []client.Filter{client.Where("room", "=", "a")}}
	got, err := q.Payload()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"metrics": []any{map[string]any{"ref": "t", "method": "MAX"}, map[string]any{"ref": "h", "method": "AVG"}},
		"limit": int64(5), "timeRange": []any{"2026-01-01T00:00:00Z", nil}, "bucketMs": int64(60000), "groupBy": []any{"room"},
		"filterAnd": []any{map[string]any{"column": "room", "operator": "=", "value": "a"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("series payload (-want +got):\n%s", diff)
	}
	// No start: from the table's first row.
	open := client.SeriesQuery{Metrics: q.Metrics, Limit: 1}
	if got, err := open.Payload(); err != nil || !cmp.Equal(got["timeRange"], []any{nil, nil}) {
		t.Errorf("open range: %v, %v; want timeRange [nil nil]", got, err)
	}
	for _, bad := range []client.SeriesQuery{{}, {Metrics: q.Metrics}, {Metrics: q.Metrics, Limit: 1, TimeRange: q.TimeRange, FilterAnd: []client.Filter{client.Latest()}}} {
		if _, err := bad.Payload(); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%+v: err = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

// recordedArgs returns the args of every recorded call of uri.
func recordedArgs(p *platformtest.Platform, uri string) [][]any {
	var out [][]any
	for _, m := range p.Calls() {
		if m.URI == uri {
			out = append(out, m.Args)
		}
	}
	return out
}

func TestCallData(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if _, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 21.5, N: 1}); err != nil {
		t.Fatal(err)
	}

	const uri = "history.transformed.sensordata"
	cancel := f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindCall, URI: uri, Error: "wamp.error.no_such_procedure", Times: 1})
	defer cancel()
	res, err := c.CallData(ctx, uri, map[string]any{"limit": 5, "offset": 0, "timeRange": []any{t0, nil}})
	if err != nil {
		t.Fatalf("refused once as not served yet, then retried: %v", err)
	}
	rows, _ := res.Args[0].([]any)
	if len(rows) != 1 {
		t.Errorf("answer %v", res.Args)
	}
	sent := recordedArgs(f.p, uri)
	want := []any{map[string]any{"limit": int64(5), "offset": int64(0), "timeRange": []any{"2026-01-01T00:00:00Z", nil}}}
	if len(sent) != 2 || !cmp.Equal(want, sent[1]) {
		t.Errorf("sent %v, want twice %v (Go values encoded)", sent, want)
	}

	_, err = c.CallData(ctx, uri, map[string]any{"limit": -1})
	var oe *client.OpError
	if client.WampURI(err) != "wamp.error.runtime_error" || !errors.As(err, &oe) || oe.Op != "CallData" || oe.URI != uri {
		t.Errorf("refusal: %v, want an OpError of CallData keeping wamp.error.runtime_error", err)
	}

	if _, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0.Add(time.Second), Temperature: 22, N: 2}); err != nil {
		t.Fatal(err)
	}
	f.p.SetChunkBudget(f.a.Realm(), "sensordata", 200) // one row, not two
	var chunks []*client.Result
	if _, err := c.CallData(ctx, uri, map[string]any{"limit": 5, "offset": 0}, client.Progress(func(r *client.Result) { chunks = append(chunks, r) })); err != nil || len(chunks) != 2 {
		t.Errorf("progress: %d chunks, %v", len(chunks), err)
	}

	start := time.Now()
	_, err = c.CallData(ctx, "secret.reveal.sensordata", nil)
	if !errors.Is(err, client.ErrNotServed) || errors.Is(err, client.ErrUnknownTable) || client.WampURI(err) != "wamp.error.no_such_procedure" {
		t.Errorf("unregistered procedure: %v, want ErrNotServed keeping wamp.error.no_such_procedure", err)
	}
	if !strings.Contains(err.Error(), "does not register secret.reveal.sensordata") {
		t.Errorf("message does not name the procedure: %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Error("took the whole reconnect window to give up")
	}
	if sent := recordedArgs(f.p, "secret.reveal.sensordata"); len(sent) == 0 || len(sent[0]) != 0 {
		t.Errorf("nil payload sent as %v, want no args", sent)
	}

	ended, cancelEnded := context.WithCancel(ctx)
	cancelEnded()
	before := len(f.p.Calls())
	if _, err := c.CallData(ended, uri, nil); !errors.Is(err, context.Canceled) || len(f.p.Calls()) != before {
		t.Errorf("ended context: %v, %d calls sent", err, len(f.p.Calls())-before)
	}

	for _, bad := range []func() error{
		func() error { _, err := c.CallData(ctx, "", nil); return err },
		func() error { _, err := c.CallData(ctx, "a..b", nil); return err },
		func() error { _, err := c.CallData(ctx, uri, map[string]any{"f": func() {}}); return err },
		func() error { _, err := c.CallData(ctx, uri, nil, client.Timeout(-time.Second)); return err },
	} {
		if err := bad(); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("err = %v, want ErrInvalidArgument", err)
		}
	}
}
