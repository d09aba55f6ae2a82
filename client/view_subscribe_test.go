package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// viewTemplate has a transform whose rows the memory store is given.
const viewTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
  transforms:
    - tablename: hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, avg(temperature) AS avg_temp FROM sensordata GROUP BY 1 ORDER BY 1 DESC
      columns:
        - {id: tsp, name: Hour, dataType: timestamp}
        - {id: avg_temp, name: Average, dataType: numeric}
`

type hourRow struct {
	Tsp     time.Time `json:"tsp"`
	AvgTemp float64   `json:"avg_temp"`
}

// TestSubscribeToView: each refresh of a transform arrives as one
// snapshot of the whole view (view order reversed), rows that left the
// view absent, an empty view as an empty snapshot; SubscribeToTable hands
// the same rows over one at a time.
func TestSubscribeToView(t *testing.T) {
	p := platformtest.New(t)
	in := p.Install(p.AddDevice("d"), p.AddApp("views", viewTemplate), platformtest.Dev)
	c := connect(t, in)
	ctx := ctxT(t)
	snaps := make(chan *client.ViewEvent, 8)
	if _, err := c.SubscribeToView(ctx, "hourly", func(_ context.Context, ev *client.ViewEvent) { snaps <- ev }); err != nil {
		t.Fatal(err)
	}
	rows := make(chan client.Row, 8)
	if _, err := c.SubscribeToTable(ctx, "hourly", func(_ context.Context, ev *client.TableEvent) { rows <- ev.Row }); err != nil {
		t.Fatal(err)
	}
	next := func(what string) *client.ViewEvent {
		t.Helper()
		select {
		case ev := <-snaps:
			return ev
		case <-ctx.Done():
			t.Fatalf("no snapshot: %s", what)
			return nil
		}
	}
	h := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Hour) }
	set := func(hours ...int) {
		t.Helper()
		var view []map[string]any
		for _, i := range hours {
			view = append(view, map[string]any{"tsp": h(i), "avg_temp": float64(20 + i)})
		}
		if err := p.SetTransformRows(in.Realm(), "hourly", view); err != nil {
			t.Fatal(err)
		}
	}
	decode := func(ev *client.ViewEvent) []hourRow {
		t.Helper()
		var out []hourRow
		if err := ev.Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	set(2, 1, 0) // newest first, as the SQL orders it
	ev := next("first refresh")
	if diff := cmp.Diff([]hourRow{{h(0), 20}, {h(1), 21}, {h(2), 22}}, decode(ev)); diff != "" || ev.Transform != "hourly" {
		t.Errorf("snapshot of %q (-want +got):\n%s", ev.Transform, diff)
	}
	for i := range 3 {
		select {
		case r := <-rows:
			if r["tsp"] != h(i).Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("row %d of SubscribeToTable: %v", i, r)
			}
		case <-ctx.Done():
			t.Fatal("SubscribeToTable got no rows")
		}
	}
	set(3, 2) // hours 0 and 1 left the view
	if diff := cmp.Diff([]hourRow{{h(2), 22}, {h(3), 23}}, decode(next("second refresh"))); diff != "" {
		t.Errorf("second snapshot (-want +got):\n%s", diff)
	}
	set()
	if ev := next("empty view"); ev.Rows == nil || len(ev.Rows) != 0 {
		t.Errorf("empty view arrived as %#v", ev.Rows)
	}

	for _, tc := range []struct {
		name, view string
		h          client.ViewHandler
		opts       []client.SubscribeOption
	}{
		{"nil handler", "hourly", nil, nil},
		{"empty name", "", func(context.Context, *client.ViewEvent) {}, nil},
		{"match policy", "hourly", func(context.Context, *client.ViewEvent) {}, []client.SubscribeOption{client.Match(client.MatchPrefix)}},
	} {
		if _, err := c.SubscribeToView(ctx, tc.view, tc.h, tc.opts...); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", tc.name, err)
		}
	}
}
