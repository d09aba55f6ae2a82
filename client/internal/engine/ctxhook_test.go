// This file tests how a reading caller is interrupted: the hook kept for
// a ctx that comes back ends a request of that ctx when it ends, a hook is
// not kept for a ctx seen once, and a read deadline that passed while
// nobody read does not end the next request.

package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// hookState returns whether a hook is kept, and for which Done channel.
func hookState(s *Session) (bool, <-chan struct{}) {
	s.hook.mu.Lock()
	defer s.hook.mu.Unlock()
	return s.hook.stop != nil, s.hook.kept
}

// leadingSession connects a session on the relay router whose goroutine
// never takes a free reader role, and returns it with a ctx bounding the
// test. The session's goroutine reads first, until it has handed over an
// answer or the role: once it took that turn (it may start late on a
// loaded machine, and take the role when a later request freed it, to
// keep it until an answer comes), one publication (with a ctx that never
// ends, which no hook notes) leaves the role free, and every request's
// caller reads for itself.
func leadingSession(t *testing.T) (*Session, context.Context) {
	t.Helper()
	leakcheck.Check(t)
	s := connectWith(t, leadingConfig(relayRouter(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	awaitFirstTurn(ctx, t, s)
	publishN(t, s, context.Background(), 1)
	return s, ctx
}

// publishN publishes n times with ctx.
func publishN(t *testing.T, s *Session, ctx context.Context, n int) {
	t.Helper()
	for range n {
		if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestKeptHookEndsALeadingRequest(t *testing.T) {
	s, bg := leadingSession(t)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()

	// A ctx seen once gets no kept hook; seen again, it does.
	publishN(t, s, ctx, 1)
	if kept, _ := hookState(s); kept {
		t.Fatal("a hook is kept for a ctx seen once")
	}
	publishN(t, s, ctx, 1)
	if kept, done := hookState(s); !kept || done != ctx.Done() {
		t.Fatal("no hook is kept for a ctx that came back")
	}
	// A request of that ctx reading for its answer ends with it.
	result := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "com.example.hang", nil, nil, CallOptions{})
		result <- err
	}()
	waitFor(bg, t, s, "the caller to lead", func() bool { return s.role == roleCaller && s.leader != nil })
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("call of a cancelled ctx: %v", err)
	}
	// Another ctx replaces the kept hook; the session goes on.
	publishN(t, s, bg, 1)
	if kept, _ := hookState(s); kept {
		t.Fatal("the hook of the cancelled ctx is still kept")
	}
}

func TestSessionEndRemovesTheKeptHook(t *testing.T) {
	s, ctx := leadingSession(t)
	publishN(t, s, ctx, 2)
	if kept, _ := hookState(s); !kept {
		t.Fatal("no hook is kept for a ctx that came back")
	}
	s.Close(errors.New("test over"))
	// The session's goroutine removes the hook as it ends; the handler
	// context it cancels last tells that it did.
	<-s.Context().Done()
	if kept, _ := hookState(s); kept {
		t.Fatal("the ended session still keeps a hook in a live ctx")
	}
	// And takes no new one.
	if err := s.Publish(ctx, "com.example.x", nil, nil); err == nil {
		t.Fatal("publish on an ended session succeeded")
	}
	if kept, _ := hookState(s); kept {
		t.Fatal("an ended session took a hook")
	}
}

func TestPassedDeadlineDoesNotEndTheNextRequest(t *testing.T) {
	s, ctx := leadingSession(t)
	publishN(t, s, ctx, 1)
	// The role is free and stays free: set the read deadline a request left
	// behind to one that has passed, as after a pause longer than the
	// response timeout.
	s.mu.Lock()
	s.l.fc.setDeadline(time.Now().Add(-time.Second))
	s.mu.Unlock()
	for range 3 {
		if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
			t.Fatalf("publish after a deadline passed: %v", err)
		}
	}
}
