package worldtest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
)

// WireClient speaks WAMP message by message, for tests that look at exact
// frames.
type WireClient struct {
	t      *testing.T
	Conn   *websocket.Conn // the link, for tests that write raw bytes
	ser    serialize.Serializer
	ptype  int
	Frames chan Frame // what the router sent, in order; closed with the link
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	req    wamp.ID
}

// Frame is one received message, typed and as the raw list.
type Frame struct {
	Msg wamp.Message // the message
	Raw []any        // the message as the list it travelled as
}

// DialWire opens a WebSocket link with the JSON or msgpack subprotocol.
func DialWire(t *testing.T, p Router, json bool) *WireClient {
	t.Helper()
	proto, ser, ptype := wire.SubprotocolMsgpack, serialize.Serializer(&serialize.MessagePackSerializer{}), websocket.BinaryMessage
	if json {
		proto, ser, ptype = wire.SubprotocolJSON, &serialize.JSONSerializer{}, websocket.TextMessage
	}
	d := websocket.Dialer{Subprotocols: []string{proto}}
	conn, rsp, err := d.DialContext(Ctx(t), p.URL(), http.Header{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = rsp.Body.Close()
	c := &WireClient{t: t, Conn: conn, ser: ser, ptype: ptype, Frames: make(chan Frame, 1<<16), done: make(chan struct{})}
	go c.read()
	t.Cleanup(c.Close)
	return c
}

func (c *WireClient) read() {
	defer close(c.Frames)
	for {
		_, b, err := c.Conn.ReadMessage()
		if err != nil {
			return
		}
		var raw []any
		_ = c.ser.DeserializeDataItem(b, &raw)
		msg, err := c.ser.Deserialize(b)
		if err != nil {
			continue
		}
		select {
		case c.Frames <- Frame{msg, raw}:
		case <-c.done:
			return
		}
	}
}

// Close closes the link; the test's cleanup does it too.
func (c *WireClient) Close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.Conn.Close()
	})
}

// Send sends msg, failing the test when it cannot.
func (c *WireClient) Send(msg wamp.Message) {
	c.t.Helper()
	b, err := c.ser.Serialize(msg)
	if err != nil {
		c.t.Fatalf("serialize %v: %v", msg.MessageType(), err)
	}
	if err := c.Conn.WriteMessage(c.ptype, b); err != nil {
		c.t.Fatalf("write %v: %v", msg.MessageType(), err)
	}
}

// Next returns the next Frame, or fails the test when the link closes or
// the test timeout passes.
func (c *WireClient) Next() Frame {
	c.t.Helper()
	f, err := c.NextCtx(Ctx(c.t))
	if err != nil {
		c.t.Fatalf("waiting for a message: %v", err)
	}
	return f
}

// ErrLinkClosed is NextCtx's error once the router closed the link.
var ErrLinkClosed = errors.New("link closed")

// NextCtx returns the next frame, ErrLinkClosed when the link closed, or
// ctx's error.
func (c *WireClient) NextCtx(ctx context.Context) (Frame, error) {
	select {
	case f, ok := <-c.Frames:
		if !ok {
			return Frame{}, ErrLinkClosed
		}
		return f, nil
	case <-ctx.Done():
		return Frame{}, ctx.Err()
	}
}

// NewReq returns the next request ID.
func (c *WireClient) NewReq() wamp.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.req++
	return c.req
}

// Join sends HELLO for realm as authid, answers the challenge with secret
// and returns the final message: WELCOME or ABORT.
func (c *WireClient) Join(realm, authid, secret string) wamp.Message {
	c.t.Helper()
	c.Send(HelloMsg(realm, authid))
	f := c.Next()
	ch, ok := f.Msg.(*wamp.Challenge)
	if !ok {
		return f.Msg
	}
	c.Send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, ch, nil), Extra: wamp.Dict{}})
	return c.Next().Msg
}

// HelloMsg is the HELLO of a client joining realm as authid with
// WAMP-CRA.
func HelloMsg(realm, authid string) *wamp.Hello {
	return &wamp.Hello{Realm: wamp.URI(realm), Details: wamp.Dict{
		"authid":      authid,
		"authmethods": wamp.List{"wampcra"},
		"roles": wamp.Dict{
			"publisher":  wamp.Dict{},
			"subscriber": wamp.Dict{"features": wamp.Dict{"publisher_identification": true, "pattern_based_subscription": true}},
			"caller":     wamp.Dict{},
			"callee":     wamp.Dict{"features": wamp.Dict{"pattern_based_registration": true, "caller_identification": true}},
		},
	}}
}

// MustJoin joins and fails the test unless WELCOME comes back.
func (c *WireClient) MustJoin(realm, authid, secret string) *wamp.Welcome {
	c.t.Helper()
	msg := c.Join(realm, authid, secret)
	w, ok := msg.(*wamp.Welcome)
	if !ok {
		c.t.Fatalf("join %s as %s: got %s %+v", realm, authid, msg.MessageType(), msg)
	}
	return w
}

// JoinInstallation joins with the installation's per-app credential.
func JoinInstallation(t *testing.T, p Router, in Member, json bool) *WireClient {
	t.Helper()
	c := DialWire(t, p, json)
	id, secret := in.Credentials()
	c.MustJoin(in.Realm(), id, secret)
	return c
}

// Answer sends msg and returns the first Frame answering request req,
// skipping others (events, invocations) into skipped.
func (c *WireClient) Answer(req wamp.ID, msg wamp.Message) Frame {
	c.t.Helper()
	c.Send(msg)
	for {
		f := c.Next()
		if RequestOf(f.Msg) == req {
			return f
		}
	}
}

// RequestOf returns the request ID a router answer refers to.
func RequestOf(msg wamp.Message) wamp.ID {
	switch m := msg.(type) {
	case *wamp.Error:
		return m.Request
	case *wamp.Published:
		return m.Request
	case *wamp.Subscribed:
		return m.Request
	case *wamp.Registered:
		return m.Request
	case *wamp.Unregistered:
		return m.Request
	case *wamp.Result:
		return m.Request
	case *wamp.Unsubscribed:
		return m.Request
	}
	return 0
}

// ErrorURI returns the error URI of an ERROR or ABORT, "" otherwise.
func ErrorURI(msg wamp.Message) string {
	switch m := msg.(type) {
	case *wamp.Error:
		return string(m.Error)
	case *wamp.Abort:
		return string(m.Reason)
	}
	return ""
}
