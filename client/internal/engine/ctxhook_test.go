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

func TestKeptHookEndsALeadingRequest(t *testing.T) {
	leakcheck.Check(t)
	s := connectWith(t, leadingConfig(relayRouter(t)))
	bg, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()

	// A ctx seen once gets no kept hook; seen again, it does.
	if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if kept, _ := hookState(s); kept {
		t.Fatal("a hook is kept for a ctx seen once")
	}
	if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
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
	if err := s.Publish(bg, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if kept, _ := hookState(s); kept {
		t.Fatal("the hook of the cancelled ctx is still kept")
	}
}

func TestSessionEndRemovesTheKeptHook(t *testing.T) {
	leakcheck.Check(t)
	s := connectWith(t, leadingConfig(relayRouter(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 2 {
		if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
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
	leakcheck.Check(t)
	s := connectWith(t, leadingConfig(relayRouter(t)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Publish(ctx, "com.example.x", nil, nil); err != nil {
		t.Fatal(err)
	}
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
