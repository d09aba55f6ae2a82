package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/console"
)

// stream opens the traffic stream with query and returns its events.
func stream(t *testing.T, w *world, query string) <-chan console.TrafficEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.p.HTTPURL()+"/traffic/stream?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, ct)
	}
	out := make(chan console.TrafficEvent, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev console.TrafficEvent
			if err := json.Unmarshal([]byte(data), &ev); err == nil {
				out <- ev
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = res.Body.Close()
		<-done
	})
	return out
}

// seen is a tapped message reduced to what a test compares.
type seen struct {
	Dir, Kind, URI string
	Device         int
	Error          string
}

// await reads events until every wanted one came, in any order, and
// returns what came.
func await(t *testing.T, ctx context.Context, events <-chan console.TrafficEvent, want ...seen) []console.TrafficEvent {
	t.Helper()
	missing := map[seen]bool{}
	for _, s := range want {
		missing[s] = true
	}
	var got []console.TrafficEvent
	for len(missing) > 0 {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended; still missing %v", missing)
			}
			got = append(got, ev)
			delete(missing, seen{ev.Dir, ev.Kind, ev.URI, ev.DeviceKey, ev.Error})
		case <-ctx.Done():
			t.Fatalf("still missing %v; got %+v", missing, got)
		}
	}
	return got
}

// TestTrafficStream watches publications, calls, results, errors and
// events go by, in both directions.
func TestTrafficStream(t *testing.T) {
	leakcheck.Check(t) // the stream's handler ends with the platform
	w := newWorld(t, platformtest.Console{})
	ctx := testCtx(t)
	all := stream(t, w, "")
	filtered := stream(t, w, "uri=hello&device=2")
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
	if _, err := c1.AppendToTable(ctx, "readings", map[string]any{"tsp": t0, "sensor": "s9", "celsius": 9}); err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Call(ctx, "com.example.nobody"); err == nil {
		t.Fatal("a call of nobody's procedure answered")
	}
	appendURI := wire.AppendProc(1, 1, "readings")
	evs := await(t, ctx, all,
		seen{"in", "subscribe", "com.example.hello", 2, ""},
		seen{"in", "publish", "com.example.hello", 1, ""},
		seen{"out", "event", "com.example.hello", 2, ""},
		seen{"in", "call", appendURI, 1, ""},
		seen{"out", "result", appendURI, 1, ""},
		seen{"in", "call", "com.example.nobody", 1, ""},
		seen{"out", "error", "com.example.nobody", 1, wire.ErrNoSuchProcedure},
	)
	for _, ev := range evs {
		if ev.Kind == "publish" {
			if diff := cmp.Diff(map[string]any{"n": float64(1), "DEVICE_KEY": "1"},
				map[string]any{"n": ev.Kwargs["n"], "DEVICE_KEY": ev.Kwargs["DEVICE_KEY"]}); diff != "" {
				t.Errorf("publication's payload (-want +got):\n%s", diff)
			}
			if ev.Realm != w.realm || ev.AuthID != w.in1.Device().Serial() {
				t.Errorf("publication from %s/%s", ev.Realm, ev.AuthID)
			}
		}
	}
	fev := await(t, ctx, filtered, seen{"out", "event", "com.example.hello", 2, ""})
	for _, ev := range fev {
		if ev.DeviceKey != 2 || !strings.Contains(ev.URI, "hello") {
			t.Errorf("the filter let %+v through", ev)
		}
	}
}

// TestTrafficRecorded checks the page's recorded messages, which need no
// JavaScript, and its filter.
func TestTrafficRecorded(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := testCtx(t)
	c := clienttest.Start(t, w.in1)
	// A call is recorded before it goes on, so it is there once answered.
	if _, err := c.Call(ctx, "com.example.hello", "world"); err == nil {
		t.Fatal("a call of nobody's procedure answered")
	}
	_, body := w.get(t, "/traffic?uri=hello")
	if !strings.Contains(body, "com.example.hello") || !strings.Contains(body, "&#34;world&#34;") {
		t.Errorf("the recorded publication does not show:\n%s", body)
	}
	_, body = w.get(t, "/traffic?uri=nothing")
	if strings.Contains(body, "com.example.hello") {
		t.Error("the filter shows what it should hide")
	}
	// The device filter: the call came from device 1 (press-1), not 2.
	recorded := func(query string) int {
		_, body := w.get(t, "/traffic?"+query)
		n := 0
		for _, row := range tableCells(t, body, "recorded") {
			if len(row) > 5 && row[5] == "com.example.hello" {
				n++
			}
		}
		return n
	}
	if n := recorded("uri=hello&device=1"); n != 1 {
		t.Errorf("the filter device=1 shows %d of the device's calls, want 1", n)
	}
	for _, device := range []string{"2", "0"} {
		if n := recorded("uri=hello&device=" + device); n != 0 {
			t.Errorf("the filter device=%s shows device 1's call", device)
		}
	}
}

// TestTrafficCompact: ?view=compact shows each recorded message on one
// line, the filter kept by the links between the views.
func TestTrafficCompact(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	c := clienttest.Start(t, w.in1)
	if err := c.Publish(testCtx(t), "com.example.one", client.Kwargs{"a": 1}); err != nil {
		t.Fatal(err)
	}
	_, body := w.get(t, "/traffic?uri=example")
	if !strings.Contains(body, `href="/traffic?uri=example&amp;view=compact" id="view-toggle"`) || !strings.Contains(body, "<pre>") {
		t.Errorf("the full view:\n%s", body)
	}
	_, body = w.get(t, "/traffic?uri=example&view=compact")
	for _, s := range []string{`href="/traffic?uri=example" id="view-toggle"`, `data-compact="1"`, `<table class="traffic compact" id="recorded">`,
		`<code title="{`, `>{&#34;kwargs&#34;:{&#34;DEVICE_KEY&#34;`, `&#34;a&#34;:1}}</code>`, `<input type="hidden" name="view" value="compact">`} {
		if !strings.Contains(body, s) {
			t.Errorf("the compact view lacks %s:\n%s", s, body)
		}
	}
}

// TestTrafficCounters: the page shows the platform's metrics, the same
// registry as flockd's /metrics, counting the traffic of the session.
func TestTrafficCounters(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	c := clienttest.Start(t, w.in1)
	if _, err := c.Call(testCtx(t), "com.example.hello", "world"); err == nil {
		t.Fatal("a call of nobody's procedure answered")
	}
	_, body := w.get(t, "/traffic")
	found := false
	for _, row := range tableCells(t, body, "counters") {
		if len(row) == 3 && row[0] == "flockd_refusals_total" &&
			row[1] == `type="CALL", uri="com.example.hello", error="wamp.error.no_such_procedure"` && row[2] == "1" {
			found = true
		}
	}
	if !found {
		t.Errorf("the counters do not show the refused call:\n%s", body)
	}
	var text strings.Builder
	if err := w.p.WriteMetrics(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), `flockd_refusals_total{type="CALL",uri="com.example.hello",error="wamp.error.no_such_procedure"} 1`) {
		t.Errorf("/metrics differs from the page:\n%s", text.String())
	}
}
