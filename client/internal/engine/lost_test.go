// This file tests what a request gets when the link ends around it: not
// sent when it ended before the write, outcome unknown when it ended after.

package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// requests are the operations of a session that wait for an answer.
var requests = map[string]func(context.Context, *Session) error{
	"call": func(ctx context.Context, s *Session) error {
		_, err := s.Call(ctx, "com.example.p", nil, nil, CallOptions{})
		return err
	},
	"publish": func(ctx context.Context, s *Session) error {
		return s.Publish(ctx, "com.example.t", []any{1}, nil)
	},
	"subscribe": func(ctx context.Context, s *Session) error {
		return s.Subscribe(ctx, &Topic{URI: "com.example.t", Deliver: func(Event) {}})
	},
	"register": func(ctx context.Context, s *Session) error {
		return s.Register(ctx, &Procedure{URI: "com.example.p", Handler: func(context.Context, Invocation) (Payload, error) {
			return Payload{}, nil
		}})
	},
}

func TestRequestNotSent(t *testing.T) {
	leakcheck.Check(t)
	url := scriptedRouter(t, func(func(wamp.Message), wamp.Message) {
		t.Error("a request reached the router after the link ended")
	})
	for name, op := range requests {
		s := connectTo(t, url)
		reason := errors.New("link cut by the test")
		s.Close(reason)
		err := op(context.Background(), s)
		if !errors.Is(err, ErrNotSent) || !errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s on an ended link: err = %v, want ErrNotSent (and ErrConnectionLost)", name, err)
		}
		if !errors.Is(err, reason) {
			t.Errorf("%s: err = %v does not wrap the reason the link ended", name, err)
		}
	}
}

func TestRequestOutcomeUnknown(t *testing.T) {
	leakcheck.Check(t)
	received := make(chan wamp.MessageType, 1)
	url := wsRouter(t, func(p *peer) {
		if !p.handshake() {
			return
		}
		// The request arrives, then the connection ends before any answer.
		if msg, ok := p.read(); ok {
			received <- msg.MessageType()
		}
	})
	for name, op := range requests {
		s := connectTo(t, url)
		err := op(context.Background(), s)
		if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrNotSent) {
			t.Errorf("%s answered by a dropped link: err = %v, want ErrOutcomeUnknown (and ErrConnectionLost)", name, err)
		}
		if got := <-received; got == wamp.GOODBYE {
			t.Errorf("%s: the router got GOODBYE, not the request", name)
		}
	}
}
