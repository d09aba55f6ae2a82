package crossapp_test

import (
	"context"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
)

// TestSubscribeToView: a consumer gets each refresh of the provider's
// shared transform as one snapshot of the whole view, timestamps as ISO
// texts; a table the provider keeps private is refused before anything is
// sent.
func TestSubscribeToView(t *testing.T) {
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	w, err := apps.Connect(ctx, "Weather")
	if err != nil {
		t.Fatal(err)
	}
	snaps := make(chan *client.ViewEvent, 2)
	if _, err := w.SubscribeToView(ctx, "hourly", func(_ context.Context, ev *client.ViewEvent) { snaps <- ev }); err != nil {
		t.Fatal(err)
	}
	view := []map[string]any{{"tsp": t0.Add(time.Hour), "mean": 21.5}, {"tsp": t0, "mean": 20}}
	if err := f.p.SetTransformRows(f.station.Realm(), "hourly", view); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-snaps:
		if len(ev.Rows) != 2 || ev.Rows[0]["tsp"] != "2026-03-01T12:00:00.000Z" || ev.Rows[1]["tsp"] != "2026-03-01T13:00:00.000Z" {
			t.Errorf("snapshot %v", ev.Rows)
		}
	case <-ctx.Done():
		t.Fatal("no snapshot")
	}
	_, err = w.SubscribeToView(ctx, "private_stats", func(context.Context, *client.ViewEvent) {})
	wantCode(t, "SubscribeToView of a private table", err, crossapp.CodePrivateTable)
}
