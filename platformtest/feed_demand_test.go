package platformtest

import (
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
)

// TestFeedOnlyWhileSubscribed: a table's feed is published while a
// network session is subscribed to it (exactly or by a pattern) and left
// out while none is. A subscription of the platform's own session that the
// router does not count (made on its nexus client directly; feeds are
// published with exclude_me false, so it receives them) sees which
// appends were published: its events arrive in publication order, so the
// first one after a left-out append names the next published row.
func TestFeedOnlyWhileSubscribed(t *testing.T) {
	f := newCross(t, backends.Store(t, storetest.Memory))
	host := f.p.rt.Host(f.provIn.Realm())
	hidden := make(chan float64, 16)
	err := host.Session.Subscribe(wire.TransformedTopic("readings"), func(e *wamp.Event) {
		row, _ := e.Arguments[0].(map[string]any)
		temp, _ := wamp.AsFloat64(row["temp"])
		hidden <- temp
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	station := worldtest.Connect(t, f.p, f.provIn, client.MSGPACK)
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": f.provIn.Device().Serial(), "DEVICE_KEY": "7"}
	appendTemp := func(temp int) {
		t.Helper()
		row := map[string]any{"tsp": worldtest.T0.Add(time.Duration(temp) * time.Second).UnixMilli(), "temp": temp}
		worldtest.Call(t, station, wire.AppendProc(2, 77, "readings"), row, meta, false).OK(t, "append")
	}
	published := func(want float64, what string) {
		t.Helper()
		select {
		case got := <-hidden:
			if got != want {
				t.Errorf("%s: the next published row has temp %v, want %v", what, got, want)
			}
		case <-worldtest.Ctx(t).Done():
			t.Fatalf("%s: row %v not published", what, want)
		}
	}

	appendTemp(1) // nobody subscribed: left out
	for i, sub := range []struct{ topic, match string }{
		{wire.TransformedTopic("readings"), ""},
		{"transformed.", wire.MatchPrefix},
		{"transformed.readings", wire.MatchWildcard},
	} {
		base := 10 * (i + 1)
		c := worldtest.Connect(t, f.p, f.provIn, client.MSGPACK)
		got := make(chan []any, 4)
		if err := c.Subscribe(sub.topic, func(e *wamp.Event) { got <- e.Arguments }, wamp.Dict{wire.OptMatch: sub.match}); err != nil {
			t.Fatal(err)
		}
		appendTemp(base)
		worldtest.NextEvent(t, got, sub.topic+" "+sub.match)
		published(float64(base), "subscribed to "+sub.topic+" "+sub.match)

		id := c.ID()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.p.rt.WaitGone(worldtest.Ctx(t), uint64(id)); err != nil {
			t.Fatal(err)
		}
		appendTemp(base + 1) // the subscriber's link has ended: left out
	}

	// A SUBSCRIBE an interception held counts when it goes on to the
	// router, not before.
	held := f.p.Intercept(Fault{Kind: KindSubscribe, URI: wire.TransformedTopic("readings"), Hang: true, Times: 1})
	late := worldtest.Connect(t, f.p, f.provIn, client.MSGPACK)
	lateRows := make(chan []any, 4)
	subscribed := make(chan error, 1)
	go func() {
		subscribed <- late.Subscribe(wire.TransformedTopic("readings"), func(e *wamp.Event) { lateRows <- e.Arguments }, nil)
	}()
	if err := held.Wait(worldtest.Ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	appendTemp(50) // the SUBSCRIBE is held: left out
	held.Release()
	if err := <-subscribed; err != nil {
		t.Fatal(err)
	}
	appendTemp(51)
	worldtest.NextEvent(t, lateRows, "held subscriber")
	published(51, "a held SUBSCRIBE released")
	if err := late.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.p.rt.WaitGone(worldtest.Ctx(t), uint64(late.ID())); err != nil {
		t.Fatal(err)
	}

	// A subscription to another table's feed, or to an app topic, does not
	// bring this one back.
	c := worldtest.Connect(t, f.p, f.provIn, client.MSGPACK)
	for _, topic := range []string{wire.TransformedTopic("private_stats"), "com.example.readings"} {
		if err := c.Subscribe(topic, func(*wamp.Event) {}, nil); err != nil {
			t.Fatal(err)
		}
	}
	appendTemp(60)
	got := make(chan []any, 4)
	if err := c.Subscribe(wire.TransformedTopic("readings"), func(e *wamp.Event) { got <- e.Arguments }, nil); err != nil {
		t.Fatal(err)
	}
	appendTemp(61)
	worldtest.NextEvent(t, got, "subscribed again")
	published(61, "subscribed again, after a left-out row")
}
