// This file tests the provider connection through outages: a router
// restart with a table subscription restored, and a data backend that is
// not serving yet.

package crossapp_test

import (
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestHandleSurvivesRestart: after the router restarts, the handle
// reconnects on its own, restores its table subscription and reads again;
// the handle stays open.
func TestHandleSurvivesRestart(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	lost := newErrorsSeen()
	w, err := apps.Connect(ctx, "weather", lost.option())
	if err != nil {
		t.Fatal(err)
	}
	seen := make(rows, 4)
	if _, err := w.SubscribeToTable(ctx, "readings", seen.handler); err != nil {
		t.Fatal(err)
	}
	before := f.p.Sessions()

	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	// Once the handle has joined the new router, a read waits for its new
	// session, which is announced only when its subscription is restored.
	// (Before that, a read could still go out on the dying session and end
	// with client.ErrOutcomeUnknown.)
	if err := f.p.WaitSessions(ctx, f.station.Realm(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.GetHistory(ctx, "readings", nil); err != nil {
		t.Fatalf("read after the restart: %v", err)
	}
	for _, s := range f.p.Sessions() {
		for _, b := range before {
			if s.ID == b.ID {
				t.Errorf("session %d survived the restart", s.ID)
			}
		}
	}
	station := start(t, f.station.Env())
	if _, err := station.AppendToTable(ctx, "readings", reading(0, 19)); err != nil {
		t.Fatal(err)
	}
	if r := seen.next(t); r["station"] != "north" {
		t.Errorf("row after the restart: %v", r)
	}
	if w.Err() != nil {
		t.Errorf("handle ended: %v", w.Err())
	}
	select {
	case err := <-lost:
		t.Errorf("OnError: %v", err)
	default:
	}
}

// TestReadWaitsForProviderBackend: a read of a shared table the provider's
// data backend does not serve yet (no such procedure, as after its
// restart) is retried within the reconnect window. The client cannot ask
// the provider's backend whether it runs — a reader may not read its
// error-logs — and does not take that refusal for an answer.
func TestReadWaitsForProviderBackend(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	if err := f.p.InsertRows(f.station, "readings", reading(0, 20)); err != nil {
		t.Fatal(err)
	}
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	w, err := apps.Connect(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	proc := wire.HistoryProc("readings")
	refusals := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: proc, Fail: wire.ErrNoSuchProcedure, Times: 2})
	defer refusals.Cancel()
	rows, err := w.GetHistory(ctx, "readings", &client.Query{Limit: 1})
	if err != nil || len(rows) != 1 {
		t.Fatalf("read while the backend starts: %v, %v", rows, err)
	}
	if n := len(refusals.Seen()); n != 2 {
		t.Errorf("%d refused attempts, want 2", n)
	}
}
