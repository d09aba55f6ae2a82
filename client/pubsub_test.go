// This file tests publish and subscribe: metadata, order, isolation,
// unsubscribe, patterns, JSON, and invalid arguments.

package client_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestPublishSubscribe(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	pub := connect(t, f.a)
	sub := connect(t, f.b)
	ctx := ctxT(t)

	col := newCollector()
	if _, err := sub.Subscribe(ctx, "com.example.temp", col.handler); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("X", 3600))
	if err := pub.Publish(ctx, "com.example.temp", 21.5, at, []byte{1, 2}, client.Kwargs{"unit": "C"}); err != nil {
		t.Fatal(err)
	}
	ev := col.next(t)
	if diff := cmp.Diff([]any{21.5, "2026-03-01T11:00:00Z", []byte{1, 2}}, ev.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if ev.Kwargs["unit"] != "C" || ev.Kwargs["DEVICE_SERIAL_NUMBER"] != f.a.Device().Serial() {
		t.Errorf("kwargs = %v", ev.Kwargs)
	}
	if ev.PublisherAuthID != f.a.Device().Serial() {
		t.Errorf("publisher authid = %q, want the serial %q", ev.PublisherAuthID, f.a.Device().Serial())
	}
}

func TestPublishMetadata(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if err := c.Publish(ctx, "com.example.meta", map[string]any{"v": 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "com.example.meta", client.Kwargs{"DEVICE_NAME": "override", "x": 1}); err != nil {
		t.Fatal(err)
	}
	env := f.a.Env()
	pubs := f.p.Publications()
	if len(pubs) != 2 {
		t.Fatalf("recorded %d publications, want 2: %+v", len(pubs), pubs)
	}
	want := map[string]any{"DEVICE_SERIAL_NUMBER": env["DEVICE_SERIAL_NUMBER"], "DEVICE_KEY": env["DEVICE_KEY"], "DEVICE_NAME": env["DEVICE_NAME"]}
	if diff := cmp.Diff(want, pubs[0].Kwargs); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"v": int64(1)}}, pubs[0].Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	want["DEVICE_NAME"], want["x"] = "override", int64(1)
	if diff := cmp.Diff(want, pubs[1].Kwargs); diff != "" {
		t.Errorf("user keys must win (-want +got):\n%s", diff)
	}
	if pubs[1].Args == nil || len(pubs[1].Args) != 0 {
		t.Errorf("kwargs-only publish must send args [], got %#v", pubs[1].Args)
	}
}

func TestSubscriptionOrderAndIsolation(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	pub := connect(t, f.b) // the router does not echo a publication to its publisher
	ctx := ctxT(t)
	release := make(chan struct{})
	var slowCalls atomic.Int32
	if _, err := c.Subscribe(ctx, "com.example.slow", func(ctx context.Context, ev *client.Event) {
		slowCalls.Add(1)
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	var running, maxRunning atomic.Int32
	got := make(chan int64, 1000)
	if _, err := c.Subscribe(ctx, "com.example.fast", func(ctx context.Context, ev *client.Event) {
		n := running.Add(1)
		if n > maxRunning.Load() {
			maxRunning.Store(n)
		}
		got <- ev.Args[0].(int64)
		running.Add(-1)
	}); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "com.example.slow", 0); err != nil {
		t.Fatal(err)
	}
	const n = 500
	for i := range n {
		if err := pub.Publish(ctx, "com.example.fast", i); err != nil {
			t.Fatal(err)
		}
	}
	// The blocked handler of one subscription does not hold up the other,
	// and events arrive in publication order, one handler call at a time.
	for i := range n {
		select {
		case v := <-got:
			if v != int64(i) {
				t.Fatalf("event %d carried %d: out of order", i, v)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d events delivered while another subscription was blocked", i, n)
		}
	}
	if maxRunning.Load() != 1 {
		t.Errorf("handler calls overlapped: %d at once", maxRunning.Load())
	}
	close(release)
	eventually(t, 15*time.Second, "slow handler ran", func() bool { return slowCalls.Load() == 1 })
}

func TestUnsubscribeTakesEffectAtOnce(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	pub := connect(t, f.b) // the router does not echo a publication to its publisher
	ctx := ctxT(t)
	col := newCollector()
	block, entered := make(chan struct{}), make(chan struct{})
	first := true
	s, err := c.Subscribe(ctx, "com.example.u", func(ctx context.Context, ev *client.Event) {
		if first {
			first = false
			close(entered)
			<-block
		}
		col.handler(ctx, ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	// A second subscription of the topic witnesses the deliveries: the
	// session hands each event to both subscriptions' queues at once.
	witness := newCollector()
	if _, err := c.Subscribe(ctx, "com.example.u", witness.handler); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := pub.Publish(ctx, "com.example.u", i); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		witness.next(t)
	}
	// Events 1..4 are queued behind the blocked handler, once it runs: the
	// witness may get its events before the handler got the first.
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the handler was not called with the first event")
	}
	if err := s.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	close(block)
	select {
	case <-s.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("delivery goroutine did not end")
	}
	// The call that was already running completed; no other one started.
	if got := col.all(); len(got) != 1 || got[0].Args[0] != int64(0) {
		t.Fatalf("delivered after Unsubscribe: %v", got)
	}
	if err := pub.Publish(ctx, "com.example.u", 9); err != nil {
		t.Fatal(err)
	}
	if ev := witness.next(t); ev.Args[0] != int64(9) || len(col.all()) != 1 {
		t.Fatalf("witness got %v; unsubscribed one got %d events", ev.Args, len(col.all()))
	}
}

func TestSameTopicTwice(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	pub := connect(t, f.b) // the router does not echo a publication to its publisher
	ctx := ctxT(t)
	c1, c2 := newCollector(), newCollector()
	s1, err := c.Subscribe(ctx, "com.example.twice", c1.handler)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Subscribe(ctx, "com.example.twice", c2.handler); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "com.example.twice", 1); err != nil {
		t.Fatal(err)
	}
	c1.next(t)
	c2.next(t)
	if err := s1.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	<-s1.Done() // no handler call of s1 starts any more
	if err := pub.Publish(ctx, "com.example.twice", 2); err != nil {
		t.Fatal(err)
	}
	if ev := c2.next(t); ev.Args[0] != int64(2) {
		t.Errorf("second subscription got %v", ev.Args)
	}
	if got := c1.all(); len(got) != 1 {
		t.Errorf("the removed subscription got %d events, want 1", len(got))
	}
}

func TestPatternSubscription(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	pub := connect(t, f.b) // the router does not echo a publication to its publisher
	ctx := ctxT(t)
	col := newCollector()
	if _, err := c.Subscribe(ctx, "com.example.sensors", col.handler, client.Match(client.MatchPrefix)); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "com.example.sensors.temp", 1); err != nil {
		t.Fatal(err)
	}
	if ev := col.next(t); ev.Topic != "com.example.sensors.temp" {
		t.Errorf("topic = %q", ev.Topic)
	}
}

func TestJSONSerializer(t *testing.T) {
	f := newFleet(t)
	js := connect(t, f.a, client.WithSerializer(client.JSON))
	mp := connect(t, f.b)
	ctx := ctxT(t)
	col := newCollector()
	if _, err := js.Subscribe(ctx, "com.example.bin", col.handler); err != nil {
		t.Fatal(err)
	}
	if err := mp.Publish(ctx, "com.example.bin", []byte{0, 1, 255}, 1.5, int64(1)<<40); err != nil {
		t.Fatal(err)
	}
	ev := col.next(t)
	if diff := cmp.Diff([]any{[]byte{0, 1, 255}, 1.5, int64(1) << 40}, ev.Args); diff != "" {
		t.Errorf("JSON subscriber got (-want +got):\n%s", diff)
	}
	col2 := newCollector()
	if _, err := mp.Subscribe(ctx, "com.example.bin2", col2.handler); err != nil {
		t.Fatal(err)
	}
	if err := js.Publish(ctx, "com.example.bin2", []byte("xyz")); err != nil {
		t.Fatal(err)
	}
	if ev := col2.next(t); string(ev.Args[0].([]byte)) != "xyz" {
		t.Errorf("msgpack subscriber got %#v", ev.Args[0])
	}
}

func TestInvalidArguments(t *testing.T) {
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	ctx := ctxT(t)
	for name, err := range map[string]error{
		"empty topic":    c.Publish(ctx, ""),
		"space in topic": c.Publish(ctx, "a b"),
		"empty segment":  c.Publish(ctx, "a..b"),
		"channel arg":    c.Publish(ctx, "a.b", make(chan int)),
		"nil handler":    func() error { _, err := c.Subscribe(ctx, "a.b", nil); return err }(),
		"bad match": func() error {
			_, err := c.Subscribe(ctx, "a.b", func(context.Context, *client.Event) {}, client.Match("fuzzy"))
			return err
		}(),
		"bad function name":        func() error { _, err := c.RegisterDeviceFunction(ctx, " x", nil); return err }(),
		"bad target":               func() error { _, err := c.CallDeviceFunction(ctx, 0, "x"); return err }(),
		"time past 9999":           c.Publish(ctx, "a.b", map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}),
		"publish option in a call": func() error { _, err := c.Call(ctx, "a.b", client.NoMetadata()); return err }(),
		"call option in a publish": c.Publish(ctx, "a.b", client.Timeout(time.Second)),
		"bad procedure URI": func() error {
			_, err := c.RegisterProcedure(ctx, "a b", func(context.Context, *client.Invocation) (any, error) { return nil, nil })
			return err
		}(),
		"far report time": func() error {
			_, err := c.ReportError(ctx, "x", client.ReportedAt(time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)))
			return err
		}(),
		"longitude": c.SetDeviceLocation(ctx, 181, 0),
		"latitude":  c.SetDeviceLocation(ctx, 0, -90.5),
	} {
		if !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", name, err)
		}
	}
	if got := f.p.Recorded(); len(got) != 0 {
		t.Errorf("invalid calls reached the router: %+v", got)
	}
	err := c.Publish(ctx, "a.b", map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	if !strings.Contains(err.Error(), "args[0].at") || !strings.Contains(err.Error(), "0000–9999") {
		t.Errorf("a time past 9999: %v, want the field and the range named", err)
	}
}
