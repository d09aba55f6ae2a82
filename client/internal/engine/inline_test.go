// This file tests the serving of fast invocations on the session's
// goroutine (inline.go): a handler that turns out slow does not stall the
// reading of what follows, and the reader role is free while a handler
// runs there.

package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// chainRouter answers REGISTER and then keeps one INVOCATION of the
// registration in flight: the first right behind REGISTERED, each next one
// when the previous is answered, up to n. Right behind the last it sends
// an EVENT of subscription 3 (answering SUBSCRIBE with it). Answers are
// handed to answers. beforeLast, when not nil, runs right before the last
// INVOCATION is sent (the answer to the one before it has been written).
func chainRouter(t *testing.T, n int, answers chan<- wamp.Message, beforeLast func()) string {
	var mu sync.Mutex
	sent := 0
	return scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		mu.Lock()
		defer mu.Unlock()
		invoke := func() {
			if sent+1 == n && beforeLast != nil {
				beforeLast()
			}
			sent++
			send(&wamp.Invocation{Request: wamp.ID(sent), Registration: 9, Details: wamp.Dict{}, Arguments: wamp.List{int64(sent)}})
			if sent == n {
				send(&wamp.Event{Subscription: 3, Publication: 1, Details: wamp.Dict{}})
			}
		}
		switch m := msg.(type) {
		case *wamp.Subscribe:
			send(&wamp.Subscribed{Request: m.Request, Subscription: 3})
		case *wamp.Register:
			send(&wamp.Registered{Request: m.Request, Registration: 9})
			invoke()
		case *wamp.Yield, *wamp.Error:
			answers <- msg
			if sent < n {
				invoke()
			}
		}
	})
}

// TestSlowInlineHandlerLetsReadingGoOn serves fast invocations on the
// session's goroutine, then one whose handler waits for an EVENT the
// router sends right behind it: only a new session goroutine, made when
// the watch finds the handler still running, can read that EVENT.
func TestSlowInlineHandlerLetsReadingGoOn(t *testing.T) {
	leakcheck.Check(t)
	const n = 20
	answers := make(chan wamp.Message, n)
	// The procedure is fast when the slow handler's invocation comes: a
	// trivial handler's times stay under fastHandler, but one stall (the
	// emulator's, the machine's) in the first, which counts whole, would
	// send the rest to workers until the average has come down.
	var proc *Procedure
	s := connectTo(t, chainRouter(t, n, answers, func() { proc.handlerNanos.Store(1) }))
	ctx := context.Background()
	seen := make(chan struct{})
	if err := s.Subscribe(ctx, &Topic{URI: "com.example.t", Deliver: func(Event) { close(seen) }}); err != nil {
		t.Fatal(err)
	}
	proc = &Procedure{URI: "com.example.p", Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		if inv.Args[0] == int64(n) {
			<-seen
		}
		return Payload{}, nil
	}}
	if err := s.Register(ctx, proc); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		select {
		case m := <-answers:
			if _, ok := m.(*wamp.Yield); !ok {
				t.Fatalf("answer %d: %#v", i+1, m)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("answer %d did not come: the reading stalled behind a handler", i+1)
		}
	}
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	if gen != 1 {
		t.Errorf("%d goroutines took over as the session's, want 1 (the slow handler ran on it)", gen)
	}
	if proc.fast() {
		t.Error("the procedure is still served on the session's goroutine after a slow handler")
	}
}

// TestInlineHandlerFreesTheRole checks that while a handler runs on the
// session's goroutine, the reader role is not the session's: a call the
// handler makes reads its own answer.
func TestInlineHandlerFreesTheRole(t *testing.T) {
	leakcheck.Check(t)
	const n = 10
	answers := make(chan wamp.Message, n)
	url := chainRouter(t, n, answers, nil)
	s := connectTo(t, url)
	ctx := context.Background()
	type seen struct {
		inline bool // on the session's goroutine (one invocation runs at a time)
		role   int
	}
	roles := make(chan seen, n)
	proc := &Procedure{URI: "com.example.p", Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		s.mu.Lock()
		roles <- seen{inline: s.inlineNow != 0, role: s.role}
		s.mu.Unlock()
		return Payload{}, nil
	}}
	// The procedure starts as fast (1 ns on average), so its first
	// invocations run on the session's goroutine however slow this machine
	// (an emulator) makes the handler: what is checked is the role while
	// they do, not how fast the machine is.
	proc.handlerNanos.Store(1)
	if err := s.Subscribe(ctx, &Topic{URI: "com.example.t", Deliver: func(Event) {}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Register(ctx, proc); err != nil {
		t.Fatal(err)
	}
	inline := 0
	for range n {
		<-answers
		r := <-roles
		if !r.inline {
			continue
		}
		inline++
		if r.role == roleSession {
			t.Fatal("a handler ran on the session's goroutine while it held the reader role")
		}
	}
	if inline == 0 {
		t.Error("no invocation was served on the session's goroutine")
	}
}

// TestHeldAnswerLeaves checks the answers the session's goroutine holds
// while more messages wait to be read: after fast invocations, the router
// sends two back to back, and the handler of the second waits until the
// router has the answer to the first. Held behind that handler, the answer
// would never leave: it leaves once the watch gives reading to another
// goroutine, which sends what is held before it waits.
func TestHeldAnswerLeaves(t *testing.T) {
	leakcheck.Check(t)
	const warm = 10
	answered := make(chan uint64, warm+2)
	first := make(chan struct{})
	var mu sync.Mutex
	next := 0
	url := scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		mu.Lock()
		defer mu.Unlock()
		invoke := func(id int) {
			send(&wamp.Invocation{Request: wamp.ID(id), Registration: 9, Details: wamp.Dict{}, Arguments: wamp.List{int64(id)}})
		}
		switch m := msg.(type) {
		case *wamp.Register:
			send(&wamp.Registered{Request: m.Request, Registration: 9})
			next++
			invoke(next)
		case *wamp.Yield:
			answered <- uint64(m.Request)
			switch {
			case next < warm:
				next++
				invoke(next)
			case next == warm:
				invoke(warm + 1) // two in one burst: the second waits for
				invoke(warm + 2) // the answer to the first
				next = warm + 2
			case m.Request == warm+1:
				close(first)
			}
		}
	})
	s := connectTo(t, url)
	proc := &Procedure{URI: "com.example.p", Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		if inv.Args[0] == int64(warm+2) {
			<-first
		}
		return Payload{}, nil
	}}
	if err := s.Register(context.Background(), proc); err != nil {
		t.Fatal(err)
	}
	for range warm + 2 {
		select {
		case <-answered:
		case <-time.After(30 * time.Second):
			t.Fatal("an answer held behind a waiting handler never left")
		}
	}
}
