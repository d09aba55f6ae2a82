// This file tests the reader role (leader.go) against a scripted router:
// events and invocations are dispatched in order whoever reads, a caller
// leaving the role (ctx, Stop, timeout) stalls nobody, the role passes to a
// waiting caller, and the session's goroutine reads when nobody waits. The
// frame scanner of frameConn is tested against frames of every header form.

package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// testFrame builds one WebSocket frame with a payload of n bytes.
func testFrame(fin bool, op byte, n int, masked bool) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	var mask byte
	if masked {
		mask = 0x80
	}
	f := []byte{b0}
	switch {
	case n < 126:
		f = append(f, mask|byte(n))
	case n < 1<<16:
		f = append(f, mask|126, byte(n>>8), byte(n))
	default:
		f = append(f, mask|127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	if masked {
		f = append(f, 1, 2, 3, 4)
	}
	for i := range n {
		f = append(f, byte(i)|0x80) // payload bytes that look like headers
	}
	return f
}

func TestFrameScanner(t *testing.T) {
	type frame struct {
		fin      bool
		op       byte
		n        int
		masked   bool
		messages uint64 // counts once the frame ended
		controls uint64
	}
	frames := []frame{
		{true, 2, 5, false, 1, 0},
		{true, 1, 200, false, 2, 0},        // 16-bit length
		{true, 2, 70000, false, 3, 0},      // 64-bit length
		{false, 2, 10, false, 3, 0},        // first fragment
		{true, 9, 3, false, 3, 1},          // ping between fragments
		{false, 0, 0, false, 3, 1},         // empty continuation
		{true, 0, 10, false, 4, 1},         // last fragment
		{true, 10, 0, false, 4, 2},         // pong
		{true, 2, 0, false, 5, 2},          // empty message
		{true, 2, 4, true, 6, 2},           // masked
		{true, 2, 126, true, 7, 2},         // masked, 16-bit length
		{true, 8, 2, false, 8, 2},          // close
		{true, 2, 1 << 16, false, 9, 2},    // 64-bit length boundary
		{true, 2, 1<<16 - 1, false, 10, 2}, // 16-bit length boundary
	}
	var stream []byte
	var ends []int
	for _, f := range frames {
		stream = append(stream, testFrame(f.fin, f.op, f.n, f.masked)...)
		ends = append(ends, len(stream))
	}
	// want returns the counts once the first off bytes have passed.
	want := func(off int) (uint64, uint64) {
		var m, c uint64
		for i, e := range ends {
			if e <= off {
				m, c = frames[i].messages, frames[i].controls
			}
		}
		return m, c
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, chunk := range []int{0, 1, 2, 3, 7, 64, 4096} {
		var s frameScanner
		for off := 0; off < len(stream); {
			n := chunk
			if n == 0 {
				n = 1 + rng.IntN(300)
			}
			n = min(n, len(stream)-off)
			s.feed(stream[off : off+n])
			off += n
			if m, c := want(off); s.messages != m || s.controls != c {
				t.Fatalf("chunks of %d, after %d bytes: messages %d controls %d, want %d %d", chunk, off, s.messages, s.controls, m, c)
			}
		}
	}
}

// relayRouter is a scripted router for the reader tests: a PUBLISH to
// com.example.silent is never answered; any other PUBLISH is answered
// with two EVENTs (subscription 7, publication ids counting up) and an
// INVOCATION (registration 9) ahead of PUBLISHED; a CALL to
// com.example.hang is never answered, and its CANCEL releases the
// PUBLISHED of the last PUBLISH to com.example.held; any other CALL is
// answered with a progressive RESULT (when asked for), an EVENT and the
// final RESULT.
func relayRouter(t *testing.T) string {
	var mu sync.Mutex
	pub := 0
	var held wamp.ID
	return scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		mu.Lock()
		defer mu.Unlock()
		event := func() {
			pub++
			send(&wamp.Event{Subscription: 7, Publication: wamp.ID(pub), Details: wamp.Dict{}, Arguments: wamp.List{pub}})
		}
		switch m := msg.(type) {
		case *wamp.Subscribe:
			send(&wamp.Subscribed{Request: m.Request, Subscription: 7})
		case *wamp.Register:
			send(&wamp.Registered{Request: m.Request, Registration: 9})
		case *wamp.Publish:
			switch m.Topic {
			case "com.example.silent":
			case "com.example.held":
				held = m.Request
			default:
				event()
				event()
				send(&wamp.Invocation{Request: m.Request, Registration: 9, Details: wamp.Dict{}, Arguments: wamp.List{int(m.Request)}})
				send(&wamp.Published{Request: m.Request, Publication: wamp.ID(1000000 + m.Request)})
			}
		case *wamp.Call:
			if m.Procedure == "com.example.hang" {
				return
			}
			if m.Options["receive_progress"] == true {
				send(&wamp.Result{Request: m.Request, Details: wamp.Dict{"progress": true}, Arguments: wamp.List{"partial"}})
			}
			event()
			send(&wamp.Result{Request: m.Request, Details: wamp.Dict{}, Arguments: wamp.List{"done"}})
		case *wamp.Cancel:
			if held != 0 {
				send(&wamp.Published{Request: held, Publication: 1})
				held = 0
			}
		}
	})
}

// recorder records the events a Topic receives and the invocations a
// Procedure serves.
type recorder struct {
	mu     sync.Mutex
	events []int
	invs   map[int]bool
	served chan struct{}
}

func newRecorder() *recorder {
	return &recorder{invs: map[int]bool{}, served: make(chan struct{}, 1<<16)}
}

func (r *recorder) topic() *Topic {
	return &Topic{URI: "com.example.t", Deliver: func(ev Event) {
		r.mu.Lock()
		r.events = append(r.events, int(ev.PublicationID))
		r.mu.Unlock()
	}}
}

func (r *recorder) procedure(t *testing.T) *Procedure {
	return &Procedure{URI: "com.example.p", Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		id, _ := inv.Args[0].(int64)
		r.mu.Lock()
		if r.invs[int(id)] {
			t.Errorf("invocation %d served twice", id)
		}
		r.invs[int(id)] = true
		r.mu.Unlock()
		r.served <- struct{}{}
		return Payload{}, nil
	}}
}

// has reports whether event id was delivered.
func (r *recorder) has(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e == id {
			return true
		}
	}
	return false
}

// waitFor waits until cond holds (checked under s.mu), failing the test
// when ctx ends first.
func waitFor(ctx context.Context, t *testing.T, s *Session, what string, cond func() bool) {
	t.Helper()
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

func TestReaderKeepsOrderUnderConcurrentCallers(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plainConn=%v", plain), func(t *testing.T) {
			leakcheck.Check(t)
			cfg := testConfig(relayRouter(t))
			cfg.plainConn = plain
			s := connectWith(t, cfg)
			if (s.l.fc == nil) != plain {
				t.Fatalf("frameConn present: %v, want %v", s.l.fc != nil, !plain)
			}
			rec := newRecorder()
			ctx := context.Background()
			if err := s.Subscribe(ctx, rec.topic()); err != nil {
				t.Fatal(err)
			}
			if err := s.Register(ctx, rec.procedure(t)); err != nil {
				t.Fatal(err)
			}
			const callers, each = 8, 40
			var wg sync.WaitGroup
			for c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						if c%2 == 0 && i%4 == 0 {
							var parts []any
							res, err := s.Call(ctx, "com.example.echo", nil, nil, CallOptions{Progress: func(p Payload) { parts = append(parts, p.Args...) }})
							if err != nil || len(res.Args) != 1 || res.Args[0] != "done" || len(parts) != 1 || parts[0] != "partial" {
								t.Errorf("call: %v, %v, progress %v", res, err, parts)
							}
							continue
						}
						if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
							t.Errorf("publish: %v", err)
						}
					}
				}()
			}
			wg.Wait()
			// The events of each PUBLISH precede its PUBLISHED: all were
			// delivered, in the order the router sent them.
			rec.mu.Lock()
			events := append([]int(nil), rec.events...)
			rec.mu.Unlock()
			for i, e := range events {
				if e != i+1 {
					t.Fatalf("events out of order or lost at %d: %v", i, events)
				}
			}
			calls := (callers / 2) * (each / 4)
			publishes := callers*each - calls
			if len(events) != 2*publishes+calls {
				t.Fatalf("%d events, want %d", len(events), 2*publishes+calls)
			}
			for range publishes {
				<-rec.served
			}
		})
	}
}

// subscribedSession connects a session on the relay router with rec's
// topic subscribed, and returns it with a ctx bounding the test.
func subscribedSession(t *testing.T) (*Session, *recorder, context.Context) {
	t.Helper()
	leakcheck.Check(t)
	s := connectTo(t, relayRouter(t))
	rec := newRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	if err := s.Subscribe(ctx, rec.topic()); err != nil {
		t.Fatal(err)
	}
	return s, rec, ctx
}

func TestEventReadWhenNobodyWaits(t *testing.T) {
	s, rec, ctx := subscribedSession(t)
	// The CALL's final RESULT comes after an EVENT: by the time Call
	// returned, the event was dispatched. The EVENT of a held PUBLISH comes
	// with nobody waiting and must be read by the session's goroutine.
	if _, err := s.Call(ctx, "com.example.echo", nil, nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if !rec.has(1) {
		t.Fatal("the event ahead of RESULT was not dispatched")
	}
	// Two Publishes answered at once: whoever reads, the events are read.
	for range 2 {
		if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(ctx, t, s, "events 2 to 5", func() bool { return rec.has(5) })
}

// awaitFirstTurn waits until the session's goroutine took its first turn
// at reading (Connect leaves it a wake-up). Started late on a loaded
// machine (qemu in .ci/run), it would take the role a later request freed
// and keep it until an answer comes, and the next caller would follow
// instead of leading. After it, one answered request leaves the role free.
func awaitFirstTurn(ctx context.Context, t *testing.T, s *Session) {
	t.Helper()
	waitFor(ctx, t, s, "the session's goroutine to take its first turn", func() bool { return len(s.wake) == 0 })
}

// leadingConfig is a test session whose goroutine never takes back a free
// reader role on its own: a caller finding it free leads.
func leadingConfig(url string) Config {
	cfg := testConfig(url)
	cfg.idleGrace = time.Hour
	return cfg
}

func TestCancelledLeaderHandsTheRoleOn(t *testing.T) {
	leakcheck.Check(t)
	s := connectWith(t, leadingConfig(relayRouter(t)))
	bg, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	// After one answer the role is free and stays free.
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	leaderDone := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "com.example.hang", nil, nil, CallOptions{})
		leaderDone <- err
	}()
	waitFor(bg, t, s, "the call to wait", func() bool { return s.role == roleCaller && s.leader != nil || len(s.followers) == 1 })
	// Run late (a loaded machine), the session's goroutine may have taken
	// the role the publication freed, the call following: the next message
	// it reads hands the role to the call.
	s.mu.Lock()
	following := len(s.followers) == 1
	s.mu.Unlock()
	if following {
		if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(bg, t, s, "the caller to lead", func() bool { return s.role == roleCaller && s.leader != nil })
	followerDone := make(chan error, 1)
	go func() { followerDone <- s.Publish(bg, "com.example.held", nil, nil) }()
	waitFor(bg, t, s, "a follower", func() bool { return len(s.followers) == 1 })
	// The leader leaves; its CANCEL makes the router answer the follower,
	// which must now read for itself.
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled leader: %v", err)
	}
	if err := <-followerDone; err != nil {
		t.Fatalf("follower: %v", err)
	}
	// The session goes on.
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestLeaderStoppedOrTimedOut(t *testing.T) {
	leakcheck.Check(t)
	url := relayRouter(t)
	bg, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	stopCh := make(chan struct{})
	cfg := leadingConfig(url)
	cfg.Stop = stopCh
	s := connectWith(t, cfg)
	awaitFirstTurn(bg, t, s)
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Publish(bg, "com.example.silent", nil, nil) }()
	waitFor(bg, t, s, "the caller to lead", func() bool { return s.leader != nil })
	close(stopCh)
	if err := <-done; !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped leader: %v", err)
	}

	cfg = leadingConfig(url)
	cfg.ResponseTimeout = time.Second // the answered publishes must come within it, even on a loaded machine
	s = connectWith(t, cfg)
	awaitFirstTurn(bg, t, s)
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(bg, "com.example.silent", nil, nil); !errors.Is(err, ErrTimeout) {
		t.Fatalf("unanswered publish: %v, want ErrTimeout", err)
	}
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
}

func TestPingAnsweredWhileACallerLeads(t *testing.T) {
	leakcheck.Check(t)
	url := wsRouter(t, func(p *peer) {
		if !p.handshake() {
			return
		}
		var pending wamp.ID
		// The PUBLISH to com.example.ping is answered only once the client
		// answered a ping sent right after it.
		p.conn.SetPongHandler(func(string) error {
			p.send(&wamp.Published{Request: pending, Publication: 2})
			return nil
		})
		p.loop(func(send func(wamp.Message), msg wamp.Message) {
			if m, ok := msg.(*wamp.Publish); ok {
				if m.Topic != "com.example.ping" {
					send(&wamp.Published{Request: m.Request, Publication: 1})
					return
				}
				pending = m.Request
				p.wmu.Lock()
				_ = p.conn.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(5*time.Second))
				p.wmu.Unlock()
			}
		})
	})
	s := connectWith(t, leadingConfig(url))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// After one answer the role is free: the next caller leads.
	if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(ctx, "com.example.ping", nil, nil); err != nil {
		t.Fatalf("a publish answered after a ping: %v", err)
	}
	if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestSlowProgressStallsNoReading(t *testing.T) {
	s, rec, ctx := subscribedSession(t)
	// The router sends the EVENT after the progressive result: the Progress
	// callback waits for it to be dispatched, which someone else must read.
	res, err := s.Call(ctx, "com.example.echo", nil, nil, CallOptions{Progress: func(Payload) {
		waitFor(ctx, t, s, "the event behind the progressive result", func() bool { return rec.has(1) })
	}})
	if err != nil || len(res.Args) != 1 || res.Args[0] != "done" {
		t.Fatalf("call: %v, %v", res, err)
	}
}
