// This file tests a Session against a scripted router: an EVENT or an
// INVOCATION right behind SUBSCRIBED or REGISTERED is never lost.

package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// scriptedRouter accepts sessions over msgpack: it answers HELLO with a
// WAMP-CRA CHALLENGE, AUTHENTICATE with WELCOME, GOODBYE with GOODBYE, and
// hands every other message to script, which answers through send. Each
// send is one frame, written at once, so answers sent together reach the
// client back to back.
func scriptedRouter(t *testing.T, script func(send func(wamp.Message), msg wamp.Message)) string {
	t.Helper()
	ser := &serialize.MessagePackSerializer{}
	up := websocket.Upgrader{Subprotocols: []string{protoMsgPack}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		send := func(m wamp.Message) {
			b, err := ser.Serialize(m)
			if err != nil {
				t.Errorf("serialize %s: %v", m.MessageType(), err)
				return
			}
			_ = conn.WriteMessage(websocket.BinaryMessage, b)
		}
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				return
			}
			msg, err := ser.Deserialize(b)
			if err != nil {
				t.Errorf("undecodable message from the client: %v", err)
				return
			}
			switch msg.(type) {
			case *wamp.Hello:
				send(&wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": `{"nonce":"n"}`}})
			case *wamp.Authenticate:
				send(&wamp.Welcome{ID: 1, Details: wamp.Dict{}})
			case *wamp.Goodbye:
				send(&wamp.Goodbye{Reason: wamp.CloseGoodbyeAndOut, Details: wamp.Dict{}})
				return
			default:
				script(send, msg)
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func connectTo(t *testing.T, url string) *Session {
	t.Helper()
	s, err := Connect(context.Background(), Config{URL: url, Realm: "realm1", AuthID: "a", Secret: "s",
		HandshakeTimeout: 5 * time.Second, ResponseTimeout: 5 * time.Second, KeepaliveIdle: time.Minute, PongTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Leave(context.Background()); err != nil {
			t.Errorf("Leave: %v", err)
		}
	})
	return s
}

func TestEventRightBehindSubscribed(t *testing.T) {
	leakcheck.Check(t)
	url := scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		switch m := msg.(type) {
		case *wamp.Subscribe:
			send(&wamp.Subscribed{Request: m.Request, Subscription: 7})
			send(&wamp.Event{Subscription: 7, Publication: 1, Details: wamp.Dict{}, Arguments: wamp.List{"first"}})
		case *wamp.Publish:
			send(&wamp.Published{Request: m.Request, Publication: 2})
		}
	})
	s := connectTo(t, url)
	got := make(chan Event, 1)
	topic := &Topic{URI: "com.example.t", Deliver: func(ev Event) { got <- ev }}
	if err := s.Subscribe(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	// PUBLISHED is read after the EVENT, and Deliver runs on the reader:
	// once Publish returns, the event has been delivered or lost.
	if err := s.Publish(context.Background(), "com.example.other", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Topic != "com.example.t" || len(ev.Args) != 1 || ev.Args[0] != "first" {
			t.Errorf("event = %+v", ev)
		}
	default:
		t.Fatal("the EVENT right behind SUBSCRIBED was lost")
	}
}

func TestInvocationRightBehindRegistered(t *testing.T) {
	leakcheck.Check(t)
	answers := make(chan wamp.Message, 1)
	url := scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		switch m := msg.(type) {
		case *wamp.Register:
			send(&wamp.Registered{Request: m.Request, Registration: 9})
			send(&wamp.Invocation{Request: 100, Registration: 9, Details: wamp.Dict{"caller_authid": "dev-1"}, Arguments: wamp.List{"x"}})
		case *wamp.Yield, *wamp.Error:
			answers <- msg
		}
	})
	s := connectTo(t, url)
	proc := &Procedure{URI: "com.example.p", Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		return Payload{Args: []any{inv.Args[0], inv.CallerAuthID}}, nil
	}}
	if err := s.Register(context.Background(), proc); err != nil {
		t.Fatal(err)
	}
	switch m := (<-answers).(type) {
	case *wamp.Yield:
		if m.Request != 100 || len(m.Arguments) != 2 || m.Arguments[0] != "x" || m.Arguments[1] != "dev-1" {
			t.Errorf("yield = %+v", m)
		}
	case *wamp.Error:
		t.Fatalf("the INVOCATION right behind REGISTERED was refused: %s %v", m.Error, m.Arguments)
	}
}
