// This file tests the bounds on slow handlers: a subscription's queue drops
// its oldest events and counts them, a registration refuses invocations
// beyond its limit with wamp.error.unavailable, and the options are checked.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// TestSlowSubscriberQueueIsBounded holds a handler on the first event while
// 100 more arrive: the queue keeps the newest 8, drops and counts the rest,
// warns once, and the handler sees the first and the newest 8, in order.
func TestSlowSubscriberQueueIsBounded(t *testing.T) {
	f := newFleet(t)
	logs := &logCapture{}
	sub := connect(t, f.a, client.WithLogger(slog.New(logs)))
	pub := connect(t, f.b)
	ctx := ctxT(t)

	held, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var got []int64
	const total, limit = 101, 8
	done := make(chan struct{})
	s, err := sub.Subscribe(ctx, "com.example.slow", func(_ context.Context, ev *client.Event) {
		n, _ := ev.Args[0].(int64)
		if n == 0 {
			close(held)
			<-release
		}
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
		if n == total-1 {
			close(done)
		}
	}, client.QueueLimit(limit))
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "com.example.slow", 0); err != nil {
		t.Fatal(err)
	}
	<-held
	for i := 1; i < total; i++ {
		if err := pub.Publish(ctx, "com.example.slow", i); err != nil {
			t.Fatal(err)
		}
	}
	want := uint64(total - 1 - limit)
	eventually(t, 30*time.Second, "every event queued or dropped", func() bool { return s.Dropped() == want })
	if q := s.Queued(); q != limit {
		t.Errorf("Queued = %d while the handler is held, want the limit %d", q, limit)
	}
	if n := logs.count("cannot keep up"); n != 1 {
		t.Errorf("%d overload warnings, want exactly 1 (rate-limited): %q", n, logs.messages())
	}
	if e := logs.with("cannot keep up"); len(e) == 1 && e[0].attrs["topic"].String() != "com.example.slow" {
		t.Errorf("the warning names topic %v", e[0].attrs["topic"])
	}
	close(release)
	<-done
	mu.Lock()
	defer mu.Unlock()
	wantGot := []int64{0}
	for i := total - limit; i < total; i++ {
		wantGot = append(wantGot, int64(i))
	}
	if !slices.Equal(got, wantGot) {
		t.Errorf("handled %v, want %v", got, wantGot)
	}
}

// TestClientEventQueueLimitIsTheDefault checks that WithEventQueueLimit
// bounds a subscription made without QueueLimit, table subscriptions too.
func TestClientEventQueueLimitIsTheDefault(t *testing.T) {
	f := newFleet(t)
	sub := connect(t, f.a, client.WithEventQueueLimit(2))
	pub := connect(t, f.b)
	ctx := ctxT(t)
	held, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	var once sync.Once
	s, err := sub.Subscribe(ctx, "com.example.slow", func(context.Context, *client.Event) {
		once.Do(func() { close(held) })
		<-release
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := pub.Publish(ctx, "com.example.slow", i); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			<-held
		}
	}
	eventually(t, 30*time.Second, "3 events dropped", func() bool { return s.Dropped() == 3 })
	if q := s.Queued(); q != 2 {
		t.Errorf("Queued = %d, want 2", q)
	}
}

// TestSlowDeviceFunctionRefusesBeyondItsLimit holds two invocations of a
// function limited to two: a third call is answered at once with
// wamp.error.unavailable and counted; the held ones still complete.
func TestSlowDeviceFunctionRefusesBeyondItsLimit(t *testing.T) {
	f := newFleet(t)
	logs := &logCapture{}
	callee := connect(t, f.a, client.WithLogger(slog.New(logs)))
	caller := connect(t, f.b)
	ctx := ctxT(t)
	release := make(chan struct{})
	reg, err := callee.RegisterDeviceFunction(ctx, "slow", func(ctx context.Context, inv *client.Invocation) (any, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, client.InvocationLimit(2))
	if err != nil {
		t.Fatal(err)
	}
	key := f.a.Device().Key()
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := caller.CallDeviceFunction(ctx, key, "slow")
			results <- err
		}()
	}
	eventually(t, 30*time.Second, "two invocations in flight", func() bool { return reg.InFlight() == 2 })
	_, err = caller.CallDeviceFunction(ctx, key, "slow")
	var we *client.WampError
	if !errors.As(err, &we) || we.URI != "wamp.error.unavailable" {
		t.Fatalf("third call: %v, want wamp.error.unavailable", err)
	}
	if got := fmt.Sprint(we.Args); !containsAll(got, "slow", "busy", "2") {
		t.Errorf("refusal args %q do not name the procedure, the reason and the limit", got)
	}
	if n := reg.Refused(); n != 1 {
		t.Errorf("Refused = %d, want 1", n)
	}
	if !logs.has("limit of invocations in flight") {
		t.Errorf("no warning logged: %q", logs.messages())
	}
	close(release)
	for range 2 {
		if err := <-results; err != nil {
			t.Errorf("held call: %v", err)
		}
	}
	eventually(t, 30*time.Second, "no invocation in flight", func() bool { return reg.InFlight() == 0 })
	if _, err := caller.CallDeviceFunction(ctx, key, "slow"); err != nil {
		t.Errorf("call after the backlog cleared: %v", err)
	}
}

// TestQueueBoundOptionsAreChecked checks that limits below 1 are refused
// with clear errors, before anything is sent.
func TestQueueBoundOptionsAreChecked(t *testing.T) {
	f := newFleet(t)
	if _, err := client.New(client.WithEnv(f.a.Env()), client.WithEventQueueLimit(0)); err == nil || !containsAll(err.Error(), "event queue limit", "at least 1") {
		t.Errorf("WithEventQueueLimit(0): %v", err)
	}
	if _, err := client.New(client.WithEnv(f.a.Env()), client.WithInvocationLimit(-1)); err == nil || !containsAll(err.Error(), "invocation limit", "at least 1") {
		t.Errorf("WithInvocationLimit(-1): %v", err)
	}
	c := connect(t, f.a)
	ctx := ctxT(t)
	noop := func(context.Context, *client.Event) {}
	if _, err := c.Subscribe(ctx, "com.example.t", noop, client.QueueLimit(0)); !errors.Is(err, client.ErrInvalidArgument) || !containsAll(err.Error(), "Subscribe", "com.example.t", "queue limit") {
		t.Errorf("QueueLimit(0): %v", err)
	}
	if _, err := c.SubscribeToTable(ctx, "sensordata", func(context.Context, *client.TableEvent) {}, client.Match(client.MatchPrefix)); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("SubscribeToTable with a match policy: %v", err)
	}
	fn := func(context.Context, *client.Invocation) (any, error) { return nil, nil }
	if _, err := c.RegisterDeviceFunction(ctx, "f", fn, client.InvocationLimit(0)); !errors.Is(err, client.ErrInvalidArgument) || !containsAll(err.Error(), "RegisterDeviceFunction", "invocation limit") {
		t.Errorf("InvocationLimit(0): %v", err)
	}
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
