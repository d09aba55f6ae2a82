// This file holds the peers of the router benchmark: minimal WAMP sessions
// over gorilla/websocket with msgpack (anonymous or WAMP-CRA join, then
// pre-encoded messages whose request ID is patched in place, replies read
// by their type and first ID only), so that the routers' counterparts in
// this process cost as little as they can and every router gets the same
// bytes.

package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"
)

// WAMP message type codes the peers read.
const (
	wampWelcome    = 2
	wampAbort      = 3
	wampChallenge  = 4
	wampGoodbye    = 6
	wampError      = 8
	wampPublished  = 17
	wampSubscribed = 33
	wampEvent      = 36
	wampResult     = 50
	wampRegistered = 65
	wampInvocation = 68
)

// credential is how a peer joins a router: a realm and, unless anonymous,
// a WAMP-CRA authid and secret.
type credential struct {
	URL       string
	Realm     string
	AuthID    string
	Secret    string
	Anonymous bool
}

// peerRoles are the roles and features a peer announces: those of the
// SDK, so that a router does for it what it does for a device (flockd
// discloses the publisher to a subscriber that asks for it).
var peerRoles = wamp.Dict{
	"publisher": wamp.Dict{"features": wamp.Dict{"publisher_exclusion": true, "publisher_identification": true}},
	"subscriber": wamp.Dict{"features": wamp.Dict{"pattern_based_subscription": true,
		"publisher_identification": true}},
	"caller": wamp.Dict{"features": wamp.Dict{"caller_identification": true}},
	"callee": wamp.Dict{"features": wamp.Dict{"caller_identification": true}},
}

// peer is a joined session. Its reads are for one goroutine, its writes
// for one other (or the same).
type peer struct {
	ws   *websocket.Conn
	rbuf []byte
	once sync.Once
}

// dialPeer connects and joins with cred.
func dialPeer(ctx context.Context, cred credential) (*peer, error) {
	d := websocket.Dialer{Subprotocols: []string{"wamp.2.msgpack"}}
	ws, _, err := d.DialContext(ctx, cred.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", cred.URL, err)
	}
	p := &peer{ws: ws, rbuf: make([]byte, 1024)}
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	err = p.join(cred)
	if !stop() {
		err = errors.Join(err, ctx.Err())
	}
	if err != nil {
		_ = ws.Close()
		return nil, err
	}
	return p, nil
}

// join runs HELLO, [CHALLENGE, AUTHENTICATE,] WELCOME.
func (p *peer) join(cred credential) error {
	details := wamp.Dict{"roles": peerRoles, "agent": "flockbench"}
	if cred.Anonymous {
		details["authmethods"] = wamp.List{"anonymous"}
	} else {
		details["authid"] = cred.AuthID
		details["authmethods"] = wamp.List{"wampcra"}
	}
	if err := p.send(&wamp.Hello{Realm: wamp.URI(cred.Realm), Details: details}); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	for {
		m, err := p.recv()
		if err != nil {
			return fmt.Errorf("join: %w", err)
		}
		switch m := m.(type) {
		case *wamp.Challenge:
			sig := crsign.RespondChallenge(cred.Secret, m, nil)
			if err := p.send(&wamp.Authenticate{Signature: sig, Extra: wamp.Dict{}}); err != nil {
				return fmt.Errorf("authenticate: %w", err)
			}
		case *wamp.Welcome:
			return nil
		case *wamp.Abort:
			return fmt.Errorf("join refused: %s", m.Reason)
		default:
			return fmt.Errorf("join: unexpected %s", m.MessageType())
		}
	}
}

// send encodes and writes m (for the few messages that are not
// pre-encoded).
func (p *peer) send(m wamp.Message) error {
	b, err := (&serialize.MessagePackSerializer{}).Serialize(m)
	if err != nil {
		return err
	}
	return p.ws.WriteMessage(websocket.BinaryMessage, b)
}

// recv reads and decodes one message.
func (p *peer) recv() (wamp.Message, error) {
	_, b, err := p.ws.ReadMessage()
	if err != nil {
		return nil, err
	}
	return (&serialize.MessagePackSerializer{}).Deserialize(b)
}

// request sends m and returns the first ID of its answer of type want
// (SUBSCRIBED's subscription, REGISTERED's registration).
func (p *peer) request(m wamp.Message, want wamp.MessageType) (wamp.ID, error) {
	if err := p.send(m); err != nil {
		return 0, err
	}
	for {
		r, err := p.recv()
		if err != nil {
			return 0, err
		}
		switch r := r.(type) {
		case *wamp.Subscribed:
			if want == wamp.SUBSCRIBED {
				return r.Subscription, nil
			}
		case *wamp.Registered:
			if want == wamp.REGISTERED {
				return r.Registration, nil
			}
		case *wamp.Error:
			return 0, fmt.Errorf("%s refused: %s %v", m.MessageType(), r.Error, r.Arguments)
		case *wamp.Abort, *wamp.Goodbye:
			return 0, fmt.Errorf("%s: session ended by the router", m.MessageType())
		}
	}
}

// read reads the next message into the peer's buffer and returns its type
// and first ID (0 when the message has none).
func (p *peer) read() (code int, id uint64, msg []byte, err error) {
	_, r, err := p.ws.NextReader()
	if err != nil {
		return 0, 0, nil, err
	}
	n := 0
	for {
		if n == len(p.rbuf) {
			p.rbuf = append(p.rbuf, make([]byte, len(p.rbuf))...)
		}
		m, err := r.Read(p.rbuf[n:])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, nil, err
		}
	}
	msg = p.rbuf[:n]
	code, id, err = msgHeader(msg)
	if err == nil && (code == wampGoodbye || code == wampAbort) {
		err = fmt.Errorf("session ended by the router (message type %d)", code)
	}
	return code, id, msg, err
}

// leave says GOODBYE and reads until the router's, or until the router
// closes the link (nexus closes it at once, dropping its GOODBYE).
func (p *peer) leave() error {
	if err := p.send(&wamp.Goodbye{Reason: wamp.CloseRealm, Details: wamp.Dict{}}); err != nil {
		return err
	}
	for {
		m, err := p.recv()
		var closed *websocket.CloseError
		if errors.As(err, &closed) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok := m.(*wamp.Goodbye); ok {
			return nil
		}
	}
}

// write writes a pre-encoded message.
func (p *peer) write(b []byte) error { return p.ws.WriteMessage(websocket.BinaryMessage, b) }

// close closes the connection without GOODBYE, as a device that goes away.
func (p *peer) close() { p.once.Do(func() { _ = p.ws.Close() }) }

// msgHeader returns the type and the first integer after it of a
// msgpack-encoded WAMP message (for ERROR, the request ID, which comes
// after the request type).
func msgHeader(msg []byte) (code int, id uint64, err error) {
	if len(msg) < 2 {
		return 0, 0, errors.New("truncated message")
	}
	rest := msg[1:]
	switch {
	case msg[0]&0xf0 == 0x90: // fixarray
	case msg[0] == 0xdc && len(msg) >= 3:
		rest = msg[3:]
	default:
		return 0, 0, fmt.Errorf("message is not a msgpack array (0x%02x)", msg[0])
	}
	c, rest, err := msgUint(rest)
	if err != nil {
		return 0, 0, err
	}
	if c == wampError {
		if _, rest, err = msgUint(rest); err != nil {
			return 0, 0, err
		}
	}
	if len(rest) == 0 || (rest[0] >= 0x80 && (rest[0] < 0xcc || rest[0] > 0xd3)) {
		return int(c), 0, nil // no ID: GOODBYE, ABORT…
	}
	id, _, err = msgUint(rest)
	return int(c), id, err
}

// msgUint reads a msgpack non-negative integer from the start of b.
func msgUint(b []byte) (uint64, []byte, error) {
	if len(b) == 0 {
		return 0, nil, errors.New("truncated message")
	}
	var n int
	switch m := b[0]; {
	case m < 0x80:
		return uint64(m), b[1:], nil
	case m == 0xcc || m == 0xd0:
		n = 1
	case m == 0xcd || m == 0xd1:
		n = 2
	case m == 0xce || m == 0xd2:
		n = 4
	case m == 0xcf || m == 0xd3:
		n = 8
	default:
		return 0, nil, fmt.Errorf("expected an integer, got 0x%02x", m)
	}
	if len(b) < 1+n {
		return 0, nil, errors.New("truncated message")
	}
	var v uint64
	for _, c := range b[1 : 1+n] {
		v = v<<8 | uint64(c)
	}
	if b[0] >= 0xd0 && v>>(8*n-1) != 0 {
		return 0, nil, errors.New("negative integer where an ID was expected")
	}
	return v, b[1+n:], nil
}

// preencoded is a message encoded once with a fixed-width request ID
// (the second element) that is patched before each send; one sender at a
// time.
type preencoded struct{ buf []byte }

// preencode encodes m, whose request ID must be 0.
func preencode(m wamp.Message) (*preencoded, error) {
	b, err := (&serialize.MessagePackSerializer{}).Serialize(m)
	if err != nil {
		return nil, err
	}
	if len(b) < 3 || b[0]&0xf0 != 0x90 || b[1] >= 0x80 || b[2] != 0 {
		return nil, fmt.Errorf("unexpected encoding of %s: % x", m.MessageType(), b[:min(len(b), 8)])
	}
	buf := make([]byte, 0, len(b)+8)
	buf = append(buf, b[0], b[1], 0xcf, 0, 0, 0, 0, 0, 0, 0, 0)
	return &preencoded{buf: append(buf, b[3:]...)}, nil
}

// with returns the message with request ID id.
func (t *preencoded) with(id uint64) []byte {
	binary.BigEndian.PutUint64(t.buf[3:], id)
	return t.buf
}
