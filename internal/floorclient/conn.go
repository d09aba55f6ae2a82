// This file holds the connection: dial, the WAMP-CRA join, Close, Watch
// and one request in flight (Do).

package floorclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"
)

// ErrClosed is returned by requests on a closed connection.
var ErrClosed = errors.New("floorclient: connection closed")

// Conn is a joined WAMP session. Do and Pipeline may be used by one
// goroutine at a time; after StartReader only Callers may send.
type Conn struct {
	ws     *websocket.Conn
	format Format
	nextID atomic.Uint64
	rbuf   []byte // read buffer of Do and Pipeline, and of the reader
	last   []byte // the message readOne read last, in rbuf

	closeOnce sync.Once

	// With StartReader: writes are serialized by wmu, replies dispatched
	// through pending.
	wmu        sync.Mutex
	pmu        sync.Mutex
	pending    map[uint64]chan<- reply
	readErr    error // set under pmu when the reader ends
	readerDone chan struct{}
}

// Dial connects to the router at url (ws://…/ws-ua-usr) with the msgpack
// subprotocol and joins realm as authID with WAMP-CRA signed with secret.
func Dial(ctx context.Context, url, realm, authID, secret string) (*Conn, error) {
	return DialFormat(ctx, url, realm, authID, secret, MsgPack)
}

// DialFormat is Dial with the subprotocol of format f; the Templates sent
// on the Conn must be of f.
func DialFormat(ctx context.Context, url, realm, authID, secret string, f Format) (*Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{f.subprotocol()}}
	ws, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("floorclient: dial %s: %w", url, err)
	}
	c := &Conn{ws: ws, format: f, rbuf: make([]byte, 1024)}
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	err = c.join(realm, authID, secret)
	if !stop() {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		_ = ws.Close()
		return nil, err
	}
	return c, nil
}

// join runs HELLO, CHALLENGE, AUTHENTICATE, WELCOME with nexus's
// serializer.
func (c *Conn) join(realm, authID, secret string) error {
	ser := c.format.serializer()
	roles := wamp.Dict{"publisher": wamp.Dict{}, "subscriber": wamp.Dict{}, "caller": wamp.Dict{}, "callee": wamp.Dict{}}
	hello := &wamp.Hello{Realm: wamp.URI(realm), Details: wamp.Dict{
		"authid": authID, "authmethods": wamp.List{"wampcra"}, "roles": roles, "agent": "floorclient"}}
	send := func(m wamp.Message) error {
		b, err := ser.Serialize(m)
		if err != nil {
			return err
		}
		return c.ws.WriteMessage(c.frame(), b)
	}
	recv := func() (wamp.Message, error) {
		_, b, err := c.ws.ReadMessage()
		if err != nil {
			return nil, err
		}
		return ser.Deserialize(b)
	}
	if err := send(hello); err != nil {
		return fmt.Errorf("floorclient: hello: %w", err)
	}
	for {
		m, err := recv()
		if err != nil {
			return fmt.Errorf("floorclient: join: %w", err)
		}
		switch m := m.(type) {
		case *wamp.Challenge:
			sig := crsign.RespondChallenge(secret, m, nil)
			if err := send(&wamp.Authenticate{Signature: sig, Extra: wamp.Dict{}}); err != nil {
				return fmt.Errorf("floorclient: authenticate: %w", err)
			}
		case *wamp.Welcome:
			return nil
		case *wamp.Abort:
			return fmt.Errorf("floorclient: join refused: %s", m.Reason)
		default:
			return fmt.Errorf("floorclient: join: unexpected %s", m.MessageType())
		}
	}
}

// Close closes the connection; requests waiting for a reply fail with
// ErrClosed.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.ws.Close() })
	if c.readerDone != nil {
		<-c.readerDone
	}
	return err
}

// Watch closes the connection when ctx ends, which ends any read or write
// blocked in Do or Pipeline. Call the returned stop to stop watching.
func (c *Conn) Watch(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, func() { c.closeOnce.Do(func() { _ = c.ws.Close() }) })
}

// Do sends t with a new request ID and reads until its reply: one request
// in flight. A reply other than the expected success is a *RequestError.
// Do checks ctx before sending; to bound the wait for the reply, Watch the
// same ctx (a per-request timer would be most of the cost measured here).
func (c *Conn) Do(ctx context.Context, t *Template) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	id := c.nextID.Add(1)
	if err := c.ws.WriteMessage(t.frame(), t.withID(id)); err != nil {
		return c.closedErr(ctx, err)
	}
	return c.awaitReply(ctx, id, int(t.reply))
}

// awaitReply reads until the reply to request id: nil when it is of type
// want, a *RequestError when it is of another, the read's error (ctx's
// once ctx ended) when the link fails.
func (c *Conn) awaitReply(ctx context.Context, id uint64, want int) error {
	for {
		code, rid, err := c.readOne()
		if err != nil {
			return c.closedErr(ctx, err)
		}
		if rid != id {
			continue // not ours (an unrelated message): keep reading
		}
		if code != want {
			return c.requestError(code, rid)
		}
		return nil
	}
}

// readOne reads one message into c.rbuf and returns its type and request
// ID.
func (c *Conn) readOne() (int, uint64, error) {
	_, r, err := c.ws.NextReader()
	if err != nil {
		return 0, 0, err
	}
	msg, err := readMessage(r, c.rbuf)
	c.rbuf, c.last = msg[:cap(msg)], msg
	if err != nil {
		return 0, 0, err
	}
	var code int
	var id uint64
	if c.format == JSON {
		code, id, err = headerJSON(msg)
	} else {
		code, id, err = header(msg)
	}
	if err == nil && (code == codeGoodbye || code == codeAbort) {
		err = fmt.Errorf("floorclient: session ended by the router (message type %d)", code)
	}
	return code, id, err
}

// frame is the WebSocket frame type of the Conn's messages.
func (c *Conn) frame() int {
	if c.format == JSON {
		return websocket.TextMessage
	}
	return websocket.BinaryMessage
}

// closedErr prefers ctx's error when ctx ended (Watch closed the link).
func (c *Conn) closedErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
