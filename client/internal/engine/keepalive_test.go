// This file tests the keepalive on a clock the test drives: incoming
// traffic counts as proof of life, so a busy link is never pinged, and a
// silent one is.

package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// fakeClock is a clock that moves only when Advance is called.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	resets chan struct{} // signalled at every Reset of a timer
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), resets: make(chan struct{}, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) timer {
	t := &fakeTimer{clk: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	t := &fakeTimer{clk: c, fn: f}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// Advance moves the clock by d, fires the timers that are due and returns
// how many it fired. Signals of earlier resets are dropped first, so that
// one arriving afterwards tells that a fired timer was handled.
func (c *fakeClock) Advance(d time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.resets:
	default:
	}
	c.now = c.now.Add(d)
	fired := 0
	for _, t := range c.timers {
		if t.armed && !t.at.After(c.now) {
			t.armed = false
			fired++
			if t.fn != nil {
				go t.fn()
				continue
			}
			select {
			case t.ch <- c.now:
			default:
			}
		}
	}
	return fired
}

// next returns the earliest deadline of an armed timer.
func (c *fakeClock) next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next time.Time
	for _, t := range c.timers {
		if t.armed && (next.IsZero() || t.at.Before(next)) {
			next = t.at
		}
	}
	return next, !next.IsZero()
}

type fakeTimer struct {
	clk   *fakeClock
	ch    chan time.Time // nil for AfterFunc's
	fn    func()         // AfterFunc's function
	at    time.Time      // guarded by clk.mu
	armed bool           // guarded by clk.mu
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Reset(d time.Duration) {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	select { // no stale tick after a Reset, as with time.Timer
	case <-t.ch:
	default:
	}
	t.at, t.armed = t.clk.now.Add(d), true
	select {
	case t.clk.resets <- struct{}{}:
	default:
	}
}

func (t *fakeTimer) Stop() {
	t.clk.mu.Lock()
	defer t.clk.mu.Unlock()
	t.armed = false
}

func TestBusyLinkIsNeverPinged(t *testing.T) {
	leakcheck.Check(t)
	const idle = 10 * time.Second
	pings := make(chan struct{}, 100)
	peers := make(chan *peer, 1)
	url := wsRouter(t, func(p *peer) {
		p.conn.SetPingHandler(func(data string) error {
			pings <- struct{}{}
			return p.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		})
		if !p.handshake() {
			return
		}
		peers <- p
		p.loop(func(send func(wamp.Message), msg wamp.Message) {
			switch m := msg.(type) {
			case *wamp.Subscribe:
				send(&wamp.Subscribed{Request: m.Request, Subscription: 5})
			case *wamp.Publish:
				send(&wamp.Published{Request: m.Request, Publication: 1})
			}
		})
	})
	clk := newFakeClock()
	cfg := testConfig(url)
	cfg.KeepaliveIdle, cfg.PongTimeout, cfg.clock = idle, 5*time.Second, clk
	s := connectWith(t, cfg)
	p := <-peers
	got := make(chan struct{})
	ctx := context.Background()
	if err := s.Subscribe(ctx, &Topic{URI: "com.example.busy", Deliver: func(Event) { got <- struct{}{} }}); err != nil {
		t.Fatal(err)
	}
	// Three minutes of a link that receives an event every 6 s, with an
	// idle interval of 10 s: the link is never silent long enough.
	await := func(ch <-chan struct{}, what string, round int) {
		t.Helper()
		select {
		case <-ch:
		case <-pings:
			t.Fatalf("round %d: the client pinged a busy link", round)
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: %s did not happen", round, what)
		}
	}
	for i := range 30 {
		p.send(&wamp.Event{Subscription: 5, Publication: wamp.ID(i + 1), Details: wamp.Dict{}, Arguments: wamp.List{i}})
		await(got, "the delivery of the event", i) // the client has read it
		if clk.Advance(6*time.Second) > 0 {
			await(clk.resets, "the keepalive's re-arming of its timer", i) // it handled the tick
		}
	}
	// The router reads frames in order: a ping written before this
	// publication has been counted once it is acknowledged.
	if err := s.Publish(ctx, "com.example.out", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(pings); n != 0 {
		t.Fatalf("the client pinged a busy link %d times", n)
	}
	// Silent from now on. Run the clock from deadline to deadline of the
	// keepalive: it re-arms while the silence is shorter than the idle
	// interval and pings once it is not.
	quiet := clk.Now() // when PUBLISHED, the last traffic, arrived
	for {
		deadline, ok := clk.next()
		if !ok {
			t.Fatal("the keepalive has no timer armed")
		}
		clk.Advance(deadline.Sub(clk.Now()))
		if deadline.Sub(quiet) >= idle {
			break
		}
		select {
		case <-clk.resets:
		case <-pings:
			t.Fatalf("pinged after %v of silence; the idle interval is %v", deadline.Sub(quiet), idle)
		case <-time.After(10 * time.Second):
			t.Fatal("the keepalive did not handle its tick")
		}
	}
	select {
	case <-pings:
	case <-time.After(10 * time.Second):
		t.Fatal("a link silent for the idle interval was not pinged")
	}
}
