// This file holds the helpers the scenario tests share: fleets, clients,
// state recorders and event collectors.

package client_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// fast shrinks every cadence so reconnect scenarios run in milliseconds.
var fast = []client.Option{
	client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	client.WithReconnectBackoff(10*time.Millisecond, 40*time.Millisecond),
	client.WithRestoreBackoff(20*time.Millisecond, 80*time.Millisecond),
	client.WithSessionWait(5 * time.Second),
}

// fleet is a platform with one app installed on two devices in DEV.
type fleet struct {
	p    *platformtest.Platform
	app  *platformtest.App
	a, b *platformtest.Installation
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	p := platformtest.New(t)
	app := p.AddApp("interop", "")
	da := p.AddDevice("device-a")
	db := p.AddDevice("device-b")
	return &fleet{p: p, app: app, a: p.Install(da, app, platformtest.Dev), b: p.Install(db, app, platformtest.Dev)}
}

// newClient creates a client for inst without starting it; Stop is registered
// as cleanup.
func newClient(t *testing.T, env map[string]string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append(append([]client.Option{client.WithEnv(env)}, fast...), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c
}

// connect creates and starts a client for inst.
func connect(t *testing.T, inst *platformtest.Installation, opts ...client.Option) *client.Client {
	t.Helper()
	c := newClient(t, inst.Env(), opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return c
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// states records the states a client goes through.
type states struct {
	mu   sync.Mutex
	seen []client.State
	ch   chan client.State
}

func newStates() *states { return &states{ch: make(chan client.State, 1024)} }

func (s *states) option() client.Option {
	return client.WithStateHandler(func(st client.State) {
		s.mu.Lock()
		s.seen = append(s.seen, st)
		s.mu.Unlock()
		s.ch <- st
	})
}

// await waits until the client reports want.
func (s *states) await(t *testing.T, want client.State, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case st := <-s.ch:
			if st == want {
				return
			}
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("state %s not reached within %v; states seen: %v", want, within, s.seen)
		}
	}
}

// awaitReconnect waits until the client has lost its session and is
// connected again: a client that has not read the loss yet still reports
// connected on its old session.
func (s *states) awaitReconnect(t *testing.T) {
	t.Helper()
	s.await(t, client.StateReconnecting, 10*time.Second)
	s.await(t, client.StateConnected, 10*time.Second)
}

// onWait returns a channel that receives a value whenever an operation of c
// starts waiting for a session (values are dropped while one is pending).
func onWait(c *client.Client) <-chan struct{} {
	ch := make(chan struct{}, 1)
	client.OnSessionWait(c, func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	return ch
}

// startUntilLogged starts c in the background, waits until n messages
// containing sub are logged to logs, then ends the start and returns its
// error. "connection attempt failed" is logged once the attempt's error is
// kept for Start to report.
func startUntilLogged(t *testing.T, c *client.Client, logs *logCapture, sub string, n int) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startErr := make(chan error, 1)
	go func() { startErr <- c.Start(ctx) }()
	logs.await(t, sub, n)
	cancel()
	return <-startErr
}

// eventually polls cond until it holds.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// collector gathers events of a subscription.
type collector struct {
	mu  sync.Mutex
	evs []*client.Event
	ch  chan *client.Event
}

func newCollector() *collector { return &collector{ch: make(chan *client.Event, 100000)} }

func (c *collector) handler(_ context.Context, ev *client.Event) {
	c.mu.Lock()
	c.evs = append(c.evs, ev)
	c.mu.Unlock()
	c.ch <- ev
}

func (c *collector) next(t *testing.T) *client.Event {
	t.Helper()
	select {
	case ev := <-c.ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return nil
	}
}

// all returns the events handled so far.
func (c *collector) all() []*client.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*client.Event(nil), c.evs...)
}
