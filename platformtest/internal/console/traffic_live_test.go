package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/console"
)

// live opens /traffic/live with query from the console's own origin and
// returns its events.
func live(t *testing.T, w *world, query string) <-chan console.TrafficEvent {
	t.Helper()
	u := "ws" + strings.TrimPrefix(w.p.HTTPURL(), "http") + "/traffic/live?" + query
	conn, res, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {w.p.HTTPURL()}})
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", u, err, res)
	}
	out := make(chan console.TrafficEvent, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for {
			var fr struct {
				Event   *console.TrafficEvent `json:"event"`
				Dropped int64                 `json:"dropped"`
			}
			if err := conn.ReadJSON(&fr); err != nil {
				return
			}
			if fr.Event != nil {
				out <- *fr.Event
			}
		}
	}()
	t.Cleanup(func() {
		_ = conn.Close()
		<-done
	})
	return out
}

// TestTrafficLive: the page's WebSocket carries what the event stream
// carries, filtered the same way, and ends with the platform.
func TestTrafficLive(t *testing.T) {
	leakcheck.Check(t)
	w := newWorld(t, platformtest.Console{})
	ctx := testCtx(t)
	all := live(t, w, "")
	filtered := live(t, w, "uri=hello&device=2")
	c1, c2 := clienttest.Start(t, w.in1), clienttest.Start(t, w.in2)
	got := make(chan map[string]any, 1)
	if _, err := c2.Subscribe(ctx, "com.example.hello", func(_ context.Context, ev *client.Event) {
		got <- ev.Kwargs
	}); err != nil {
		t.Fatal(err)
	}
	if err := c1.Publish(ctx, "com.example.hello", client.Kwargs{"n": 1}); err != nil {
		t.Fatal(err)
	}
	<-got
	evs := await(t, ctx, all,
		seen{"in", "subscribe", "com.example.hello", 2, ""},
		seen{"in", "publish", "com.example.hello", 1, ""},
		seen{"out", "event", "com.example.hello", 2, ""},
	)
	for _, ev := range evs {
		if ev.Kind == "publish" && (ev.Realm != w.realm || ev.Kwargs["n"] != float64(1)) {
			t.Errorf("publication %+v", ev)
		}
	}
	for _, ev := range await(t, ctx, filtered, seen{"out", "event", "com.example.hello", 2, ""}) {
		if !strings.Contains(ev.URI, "hello") || ev.DeviceKey != 2 {
			t.Errorf("the filtered view showed %+v", ev)
		}
	}
}

// TestTrafficLiveOtherOrigin: a page of another origin may not open it.
func TestTrafficLiveOtherOrigin(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	u := "ws" + strings.TrimPrefix(w.p.HTTPURL(), "http") + "/traffic/live"
	conn, res, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"http://evil.example"}})
	if err == nil {
		conn.Close()
		t.Fatal("a page of another origin opened the live traffic")
	}
	if res == nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %v, %v; want 403", res, err)
	}
}
