package typed_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/typed"
)

const viewTemplate = `
data:
  tables:
    - tablename: events
      columns:
        - {id: tsp, dataType: timestamp}
  transforms:
    - tablename: hourly
      sql: SELECT 1
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: n, dataType: bigint}
`

type hour struct {
	Tsp time.Time `json:"tsp"`
	N   int64     `json:"n"`
}

// TestViewSnapshots: Snapshots hands each refresh of a transform over as
// the whole view, decoded (timestamps sent as ISO texts), an empty view
// included; a view the schema cannot decode arrives with Err and its raw
// rows.
func TestViewSnapshots(t *testing.T) {
	leakcheck.Check(t)
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("d"), p.AddApp("a", viewTemplate), platformtest.Dev)
	c := clienttest.Start(t, inst)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var refuse atomic.Bool
	schema := &typed.Schema[hour]{Table: "hourly", Decode: func(rows []client.Row) ([]hour, error) {
		if refuse.Load() {
			return nil, errors.New("no")
		}
		return client.DecodeRows[hour](rows)
	}}
	got := make(chan typed.Snapshot[hour], 4)
	sub, err := typed.NewView(c, schema).Snapshots(ctx, func(_ context.Context, s typed.Snapshot[hour]) { got <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe(context.Background())
	next := func() typed.Snapshot[hour] {
		t.Helper()
		select {
		case s := <-got:
			return s
		case <-ctx.Done():
			t.Fatal("no snapshot")
			return typed.Snapshot[hour]{}
		}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	set := func(rows ...map[string]any) {
		t.Helper()
		if err := p.SetTransformRows(inst.Realm(), "hourly", rows); err != nil {
			t.Fatal(err)
		}
	}
	set(map[string]any{"tsp": at.Add(time.Hour), "n": 2}, map[string]any{"tsp": at, "n": 1})
	s := next()
	if diff := cmp.Diff([]hour{{at, 1}, {at.Add(time.Hour), 2}}, s.Rows); diff != "" || s.Err != nil {
		t.Errorf("snapshot, err %v (-want +got):\n%s", s.Err, diff)
	}
	if s.Raw[0]["tsp"] != "2026-01-01T00:00:00.000Z" {
		t.Errorf("raw tsp %#v", s.Raw[0]["tsp"])
	}
	set()
	if s := next(); len(s.Rows) != 0 || s.Err != nil {
		t.Errorf("empty view: %+v", s)
	}
	refuse.Store(true)
	set(map[string]any{"tsp": at, "n": 1})
	if s := next(); s.Err == nil || s.Rows != nil || len(s.Raw) != 1 {
		t.Errorf("undecodable view: %+v", s)
	}
	if _, err := typed.NewView(c, schema).Snapshots(ctx, nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Snapshots(nil): %v", err)
	}
}
