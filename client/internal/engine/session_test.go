// This file tests a Session against a scripted router: an EVENT or an
// INVOCATION right behind SUBSCRIBED or REGISTERED is never lost.

package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// peer is the router's end of one connection in a test.
type peer struct {
	t    *testing.T
	conn *websocket.Conn
	ser  *serialize.MessagePackSerializer
	wmu  sync.Mutex
}

// send writes m as one frame.
func (p *peer) send(m wamp.Message) {
	b, err := p.ser.Serialize(m)
	if err != nil {
		p.t.Errorf("serialize %s: %v", m.MessageType(), err)
		return
	}
	p.write(b)
}

// sendRaw writes list as one frame, however malformed.
func (p *peer) sendRaw(list []any) {
	b, err := p.ser.SerializeDataItem(list)
	if err != nil {
		p.t.Errorf("serialize %v: %v", list, err)
		return
	}
	p.write(b)
}

func (p *peer) write(b []byte) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_ = p.conn.WriteMessage(websocket.BinaryMessage, b)
}

// read returns the next message from the client, or false once the
// connection ended.
func (p *peer) read() (wamp.Message, bool) {
	_, b, err := p.conn.ReadMessage()
	if err != nil {
		return nil, false
	}
	msg, err := p.ser.Deserialize(b)
	if err != nil {
		p.t.Errorf("undecodable message from the client: %v", err)
		return nil, false
	}
	return msg, true
}

// next reads the next message as a T; it reports false when the
// connection ended or, failing the test, the message is of another type.
func next[T wamp.Message](p *peer) (T, bool) {
	var zero T
	msg, ok := p.read()
	if !ok {
		return zero, false
	}
	m, ok := msg.(T)
	if !ok {
		p.t.Errorf("got %s from the client, want %T", msg.MessageType(), zero)
	}
	return m, ok
}

// loop answers GOODBYE with GOODBYE and hands every other message to
// script (nil ignores them), until the connection ends or the client left.
func (p *peer) loop(script func(send func(wamp.Message), msg wamp.Message)) {
	for {
		msg, ok := p.read()
		if !ok {
			return
		}
		if _, bye := msg.(*wamp.Goodbye); bye {
			p.send(&wamp.Goodbye{Reason: wamp.CloseGoodbyeAndOut, Details: wamp.Dict{}})
			return
		}
		if script != nil {
			script(p.send, msg)
		}
	}
}

// handshake answers HELLO with a WAMP-CRA CHALLENGE and AUTHENTICATE with
// WELCOME; it reports false when the client went away.
func (p *peer) handshake() bool {
	for _, answer := range []wamp.Message{
		&wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": `{"nonce":"n"}`}},
		&wamp.Welcome{ID: 1, Details: wamp.Dict{"authid": "a", "authrole": "app"}},
	} {
		if _, ok := p.read(); !ok {
			return false
		}
		p.send(answer)
	}
	return true
}

// wsRouter accepts WebSocket connections over msgpack and hands each to
// serve, on a goroutine of its own; the connection closes when serve
// returns.
func wsRouter(t *testing.T, serve func(p *peer)) string {
	t.Helper()
	up := websocket.Upgrader{Subprotocols: []string{protoMsgPack}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		serve(&peer{t: t, conn: conn, ser: &serialize.MessagePackSerializer{}})
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// scriptedRouter accepts sessions over msgpack: it answers HELLO with a
// WAMP-CRA CHALLENGE, AUTHENTICATE with WELCOME, GOODBYE with GOODBYE, and
// hands every other message to script, which answers through send. Each
// send is one frame, written at once, so answers sent together reach the
// client back to back.
func scriptedRouter(t *testing.T, script func(send func(wamp.Message), msg wamp.Message)) string {
	t.Helper()
	return wsRouter(t, func(p *peer) {
		if p.handshake() {
			p.loop(script)
		}
	})
}

// testConfig is the Config of a test session with url: WAMP-CRA as "a",
// keepalive out of the way.
func testConfig(url string) Config {
	return Config{URL: url, Realm: "realm1", AuthID: "a", Auth: []AuthMethod{{Name: AuthWAMPCRA, Secret: "s"}},
		HandshakeTimeout: 5 * time.Second, ResponseTimeout: 5 * time.Second, KeepaliveIdle: time.Minute, PongTimeout: time.Minute}
}

// connectTo connects a session to url with testConfig.
func connectTo(t *testing.T, url string) *Session {
	t.Helper()
	return connectWith(t, testConfig(url))
}

// connectWith connects a session with cfg and leaves it at cleanup.
func connectWith(t *testing.T, cfg Config) *Session {
	t.Helper()
	s, err := Connect(context.Background(), cfg)
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
