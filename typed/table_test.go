// This file tests the writes of Table against the fake platform: bulk
// rows sharing keyword arguments, the refusals before sending, and the
// errors of a Schema.

package typed_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/typed"
)

const kwargsTemplate = `
data:
  tables:
    - tablename: events
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: site, dataType: string, path: kwargs.SITE}
`

// event is a row of events; its site travels in kwargs.
type event struct {
	Tsp  time.Time `json:"tsp"`
	Site *string   `json:"site,omitempty"`
}

func eventSchema(extra any) *typed.Schema[event] {
	return &typed.Schema[event]{
		Table: "events",
		Encode: func(r event) (typed.Message, error) {
			var m typed.Message
			tsp, err := typed.EncodeTsp(r.Tsp)
			if err != nil {
				return m, err
			}
			m.Row(1)["tsp"] = tsp
			if r.Site != nil {
				m.Set([]string{"kwargs", "SITE"}, *r.Site)
			}
			if extra != nil {
				m.Set([]string{"args", "1"}, extra)
			}
			return m, nil
		},
		Decode: client.DecodeRows[event],
	}
}

// eventsApp starts the app of kwargsTemplate on the fake and a client of
// it; ctx ends with the test.
func eventsApp(t *testing.T) (*platformtest.Platform, *client.Client, context.Context) {
	t.Helper()
	leakcheck.Check(t)
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("d"), p.AddApp("a", kwargsTemplate), platformtest.Dev)
	c := clienttest.Start(t, inst)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return p, c, ctx
}

func TestBulkSharesKeywordArguments(t *testing.T) {
	p, c, ctx := eventsApp(t)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := typed.NewTable(c, eventSchema(nil))

	n, err := events.AppendRows(ctx, []event{{Tsp: at, Site: typed.Ptr("north")}, {Tsp: at.Add(time.Second), Site: typed.Ptr("north")}})
	if err != nil || n != 2 {
		t.Fatalf("AppendRows = %d, %v", n, err)
	}
	rows, err := events.History(ctx, nil)
	if err != nil || len(rows) != 2 || *rows[0].Site != "north" || *rows[1].Site != "north" {
		t.Fatalf("History = %+v, %v", rows, err)
	}

	p.ClearRecorded()
	for _, tc := range []struct {
		name string
		tb   typed.Table[event]
		rows []event
		want string
	}{
		{"kwargs differ", events, []event{{Tsp: at, Site: typed.Ptr("north")}, {Tsp: at, Site: typed.Ptr("south")}}, "rows[0] and rows[1] differ"},
		{"kwargs and none", events, []event{{Tsp: at, Site: typed.Ptr("north")}, {Tsp: at}}, "rows[0] and rows[1] differ"},
		{"zero tsp", events, []event{{Tsp: at}, {}}, "rows[1]"},
		{"args[1]", typed.NewTable(c, eventSchema("x")), []event{{Tsp: at}}, "beyond the row"},
		{"no bulk", typed.NewTable(c, &typed.Schema[event]{Table: "events", Encode: eventSchema(nil).Encode, NoBulk: "because"}), []event{{Tsp: at}}, "because"},
		{"read only", typed.NewTable(c, &typed.Schema[event]{Table: "events"}), []event{{Tsp: at}}, "read only"},
	} {
		_, err := tc.tb.AppendRows(ctx, tc.rows)
		if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "typed.AppendRows") {
			t.Errorf("%s: AppendRows: %v, want ErrInvalidArgument naming typed.AppendRows and %q", tc.name, err, tc.want)
		}
		if err := tc.tb.PublishRows(ctx, tc.rows); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s: PublishRows: %v", tc.name, err)
		}
	}
	if _, err := events.Subscribe(ctx, nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Subscribe(nil): %v", err)
	}
	if calls, pubs := p.Calls(), p.Publications(); len(calls)+len(pubs) != 0 {
		t.Errorf("sent %d calls and %d publications", len(calls), len(pubs))
	}
}

// TestEventDecodeError: a row the schema cannot decode reaches the handler
// with Err set and its raw form.
func TestEventDecodeError(t *testing.T) {
	_, c, ctx := eventsApp(t)
	strict := &typed.Schema[event]{Table: "events", Decode: func(rows []client.Row) ([]event, error) {
		return nil, errors.New("no")
	}}
	got := make(chan typed.Event[event], 1)
	sub, err := typed.NewView(c, strict).Subscribe(ctx, func(_ context.Context, ev typed.Event[event]) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe(context.Background())
	if _, err := c.AppendToTable(ctx, "events", map[string]any{"tsp": "2026-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Err == nil || !strings.Contains(ev.Err.Error(), "typed.Subscribe") || ev.Raw["tsp"] == nil {
			t.Errorf("event: %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
}
