package platformtest

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestBurstNoEventDropped publishes 20 000 events in one go to a JSON and
// a msgpack subscriber; both get every event, in order. The router drops
// a link whose writes or keepalive pings stall for seconds; a starved
// machine can stall a subscriber that long, and that is not what this
// test is about, so the fixture waits an hour for writes and sends no
// pings.
func TestBurstNoEventDropped(t *testing.T) {
	const n = 20000
	f := newFixture(t, WithServerKeepalive(0), withLimits(router.Limits{WriteTimeout: time.Hour, PingTimeout: time.Hour}))
	type counter struct {
		mu   sync.Mutex
		next int64
		bad  error
		done chan struct{}
	}
	subscribe := func(c *client.Client) *counter {
		ct := &counter{done: make(chan struct{})}
		err := c.Subscribe("burst.topic", func(e *wamp.Event) {
			ct.mu.Lock()
			defer ct.mu.Unlock()
			seq, _ := wamp.AsInt64(e.Arguments[0])
			if seq != ct.next && ct.bad == nil {
				ct.bad = fmt.Errorf("event %d arrived as number %d", seq, ct.next)
			}
			ct.next++
			if ct.next == n {
				close(ct.done)
			}
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ct
	}
	counters := map[string]*counter{
		"json":    subscribe(worldtest.Connect(t, f.p, f.in2, client.JSON)),
		"msgpack": subscribe(worldtest.Connect(t, f.p, f.in2, client.MSGPACK)),
	}
	pub := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	for i := range n {
		if err := pub.Publish("burst.topic", nil, wamp.List{i, "payload"}, nil); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	// The burst is CPU work under -race (two serializers, 40 000 EVENTs):
	// the deadline is a safety net for a hang, not a speed bound, so it is
	// generous enough for a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for name, ct := range counters {
		select {
		case <-ct.done:
		case <-ctx.Done():
			ct.mu.Lock()
			got := ct.next
			ct.mu.Unlock()
			t.Fatalf("%s subscriber got %d of %d events", name, got, n)
		}
		ct.mu.Lock()
		if ct.bad != nil {
			t.Errorf("%s subscriber: %v", name, ct.bad)
		}
		ct.mu.Unlock()
	}
}

// TestBinaryAcrossSerializers: bytes published over msgpack reach a JSON
// client in the WAMP JSON form (NUL + base64) and the other way round;
// the recording holds []byte either way.
func TestBinaryAcrossSerializers(t *testing.T) {
	f := newFixture(t)
	data := []byte{0, 1, 2, 0xfe, 0xff}
	jsonForm := "\x00" + base64.StdEncoding.EncodeToString(data)

	jsonSide := worldtest.JoinInstallation(t, f.p, f.in1, true)
	msgpackSide := worldtest.JoinInstallation(t, f.p, f.in2, false)
	for _, c := range []*worldtest.WireClient{jsonSide, msgpackSide} {
		req := c.NewReq()
		if msg := c.Answer(req, &wamp.Subscribe{Request: req, Topic: "bin.topic", Options: wamp.Dict{}}).Msg; msg.MessageType() != wamp.SUBSCRIBED {
			t.Fatalf("subscribe: %+v", msg)
		}
	}
	event := func(c *worldtest.WireClient) *wamp.Event {
		t.Helper()
		for {
			if e, ok := c.Next().Msg.(*wamp.Event); ok {
				return e
			}
		}
	}

	// msgpack publisher → JSON subscriber.
	msgpackSide.Send(&wamp.Publish{Request: msgpackSide.NewReq(), Topic: "bin.topic", Options: wamp.Dict{},
		Arguments: wamp.List{data}, ArgumentsKw: wamp.Dict{"nested": map[string]any{"b": data}}})
	e := event(jsonSide)
	if diff := cmp.Diff([]any{jsonForm}, []any(e.Arguments)); diff != "" {
		t.Errorf("JSON subscriber args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"nested": map[string]any{"b": jsonForm}}, map[string]any(e.ArgumentsKw)); diff != "" {
		t.Errorf("JSON subscriber kwargs (-want +got):\n%s", diff)
	}

	// JSON publisher → msgpack subscriber.
	jsonSide.Send(&wamp.Publish{Request: jsonSide.NewReq(), Topic: "bin.topic", Options: wamp.Dict{},
		Arguments: wamp.List{jsonForm, "plain"}})
	e = event(msgpackSide)
	if diff := cmp.Diff([]any{data, "plain"}, []any(e.Arguments)); diff != "" {
		t.Errorf("msgpack subscriber args (-want +got):\n%s", diff)
	}

	pubs := f.p.Publications()
	if len(pubs) != 2 {
		t.Fatalf("%d publications recorded, want 2", len(pubs))
	}
	want := [][]any{{data}, {data, "plain"}}
	for i, m := range pubs {
		if diff := cmp.Diff(want[i], m.Args); diff != "" {
			t.Errorf("recorded publication %d args (-want +got):\n%s", i, diff)
		}
	}
	// Recordings are copies.
	pubs[0].Args[0].([]byte)[0] = 99
	if again := f.p.Publications(); again[0].Args[0].([]byte)[0] != 0 {
		t.Error("Publications returned shared memory")
	}
}

// TestRecordingNormalised: integers arrive as int64, floats stay float64,
// maps and lists are plain, and every kind of message is recorded.
func TestRecordingNormalised(t *testing.T) {
	f := newFixture(t)
	c := worldtest.JoinInstallation(t, f.p, f.in1, true)
	req := c.NewReq()
	c.Answer(req, &wamp.Call{Request: req, Procedure: "history.transformed.t", Options: wamp.Dict{"timeout": 1000},
		Arguments: wamp.List{map[string]any{"limit": 10, "ratio": 2.0, "cols": []any{"a"}}}})
	req = c.NewReq()
	c.Answer(req, &wamp.Subscribe{Request: req, Topic: "transformed.t", Options: wamp.Dict{}})
	req = c.NewReq()
	c.Answer(req, &wamp.Register{Request: req, Procedure: "2.42.26.DEV.fn", Options: wamp.Dict{"force_reregister": true}})
	req = c.NewReq()
	c.Answer(req, &wamp.Publish{Request: req, Topic: "2.26.t", Options: wamp.Dict{"acknowledge": true},
		Arguments: wamp.List{map[string]any{"tsp": "2026-01-01T00:00:00Z", "v": 1.5}}, ArgumentsKw: wamp.Dict{"DEVICE_KEY": "42"}})

	got := f.p.Recorded()
	for i := range got {
		got[i].Time = got[i].Time.Round(0)
	}
	base := Message{Realm: f.in1.Realm(), AuthID: f.d1.Serial()}
	want := []Message{
		{Kind: KindCall, URI: "history.transformed.t", Options: map[string]any{"timeout": int64(1000)},
			Args: []any{map[string]any{"limit": int64(10), "ratio": 2.0, "cols": []any{"a"}}}},
		{Kind: KindSubscribe, URI: "transformed.t", Options: map[string]any{}},
		{Kind: KindRegister, URI: "2.42.26.DEV.fn", Options: map[string]any{"force_reregister": true}},
		{Kind: KindPublish, URI: "2.26.t", Options: map[string]any{"acknowledge": true},
			Args: []any{map[string]any{"tsp": "2026-01-01T00:00:00Z", "v": 1.5}}, Kwargs: map[string]any{"DEVICE_KEY": "42"}},
	}
	for i := range want {
		want[i].Realm, want[i].AuthID = base.Realm, base.AuthID
		if i < len(got) {
			want[i].Session, want[i].Time = got[i].Session, got[i].Time
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if len(f.p.Calls()) != 1 || len(f.p.Publications()) != 1 {
		t.Errorf("Calls %d, Publications %d; want 1 each", len(f.p.Calls()), len(f.p.Publications()))
	}
	f.p.ClearRecorded()
	if n := len(f.p.Recorded()); n != 0 {
		t.Errorf("%d messages after ClearRecorded", n)
	}
}
