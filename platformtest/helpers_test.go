package platformtest

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
)

// testTimeout bounds every wait of a test; reaching it is a failure.
const testTimeout = 20 * time.Second

var quietLog = log.New(io.Discard, "", 0)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// dialCfg returns a nexus client configuration authenticating with
// WAMP-CRA as authid with secret.
func dialCfg(realm, authid, secret string, ser serialize.Serialization) client.Config {
	return client.Config{
		Realm:        realm,
		HelloDetails: wamp.Dict{"authid": authid},
		AuthHandlers: map[string]client.AuthFunc{
			"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
				return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
			},
		},
		Serialization: ser,
		Logger:        quietLog,
	}
}

// dial connects a raw nexus client; the client is closed at the end of the
// test.
func dial(t *testing.T, url string, cfg client.Config) (*client.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := client.ConnectNet(ctx, url, cfg)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// connect joins the realm of an installation with its per-app credential.
func connect(t *testing.T, p *Platform, in *Installation, ser serialize.Serialization) *client.Client {
	t.Helper()
	id, secret := in.Credentials()
	c, err := dial(t, p.URL(), dialCfg(in.Realm(), id, secret, ser))
	if err != nil {
		t.Fatalf("join %s as %s: %v", in.Realm(), id, err)
	}
	return c
}

// wireClient speaks WAMP message by message, for tests that look at exact
// frames.
type wireClient struct {
	t      *testing.T
	conn   *websocket.Conn
	ser    serialize.Serializer
	ptype  int
	frames chan frame
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	req    wamp.ID
}

// frame is one received message, typed and as the raw list.
type frame struct {
	msg wamp.Message
	raw []any
}

// dialWire opens a WebSocket link with the JSON or msgpack subprotocol.
func dialWire(t *testing.T, p *Platform, json bool) *wireClient {
	t.Helper()
	proto, ser, ptype := wire.SubprotocolMsgpack, serialize.Serializer(&serialize.MessagePackSerializer{}), websocket.BinaryMessage
	if json {
		proto, ser, ptype = wire.SubprotocolJSON, &serialize.JSONSerializer{}, websocket.TextMessage
	}
	d := websocket.Dialer{Subprotocols: []string{proto}}
	conn, rsp, err := d.DialContext(testCtx(t), p.URL(), http.Header{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = rsp.Body.Close()
	c := &wireClient{t: t, conn: conn, ser: ser, ptype: ptype, frames: make(chan frame, 1<<16), done: make(chan struct{})}
	go c.read()
	t.Cleanup(c.close)
	return c
}

func (c *wireClient) read() {
	defer close(c.frames)
	for {
		_, b, err := c.conn.ReadMessage()
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
		case c.frames <- frame{msg, raw}:
		case <-c.done:
			return
		}
	}
}

func (c *wireClient) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.conn.Close()
	})
}

func (c *wireClient) send(msg wamp.Message) {
	c.t.Helper()
	b, err := c.ser.Serialize(msg)
	if err != nil {
		c.t.Fatalf("serialize %v: %v", msg.MessageType(), err)
	}
	if err := c.conn.WriteMessage(c.ptype, b); err != nil {
		c.t.Fatalf("write %v: %v", msg.MessageType(), err)
	}
}

// next returns the next frame, or fails the test when the link closes or
// the test timeout passes.
func (c *wireClient) next() frame {
	c.t.Helper()
	f, err := c.nextCtx(testCtx(c.t))
	if err != nil {
		c.t.Fatalf("waiting for a message: %v", err)
	}
	return f
}

var errLinkClosed = errors.New("link closed")

func (c *wireClient) nextCtx(ctx context.Context) (frame, error) {
	select {
	case f, ok := <-c.frames:
		if !ok {
			return frame{}, errLinkClosed
		}
		return f, nil
	case <-ctx.Done():
		return frame{}, ctx.Err()
	}
}

// newReq returns the next request ID.
func (c *wireClient) newReq() wamp.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.req++
	return c.req
}

// join sends HELLO for realm as authid, answers the challenge with secret
// and returns the final message: WELCOME or ABORT.
func (c *wireClient) join(realm, authid, secret string) wamp.Message {
	c.t.Helper()
	c.send(helloMsg(realm, authid))
	f := c.next()
	ch, ok := f.msg.(*wamp.Challenge)
	if !ok {
		return f.msg
	}
	c.send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, ch, nil), Extra: wamp.Dict{}})
	return c.next().msg
}

// helloMsg is the HELLO of a client joining realm as authid with
// WAMP-CRA.
func helloMsg(realm, authid string) *wamp.Hello {
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

// mustJoin joins and fails the test unless WELCOME comes back.
func (c *wireClient) mustJoin(realm, authid, secret string) *wamp.Welcome {
	c.t.Helper()
	msg := c.join(realm, authid, secret)
	w, ok := msg.(*wamp.Welcome)
	if !ok {
		c.t.Fatalf("join %s as %s: got %s %+v", realm, authid, msg.MessageType(), msg)
	}
	return w
}

// joinInstallation joins with the installation's per-app credential.
func joinInstallation(t *testing.T, p *Platform, in *Installation, json bool) *wireClient {
	t.Helper()
	c := dialWire(t, p, json)
	id, secret := in.Credentials()
	c.mustJoin(in.Realm(), id, secret)
	return c
}

// answer sends msg and returns the first frame answering request req,
// skipping others (events, invocations) into skipped.
func (c *wireClient) answer(req wamp.ID, msg wamp.Message) frame {
	c.t.Helper()
	c.send(msg)
	for {
		f := c.next()
		if requestOf(f.msg) == req {
			return f
		}
	}
}

// requestOf returns the request ID a router answer refers to.
func requestOf(msg wamp.Message) wamp.ID {
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

// errorURI returns the error URI of an ERROR or ABORT, "" otherwise.
func errorURI(msg wamp.Message) string {
	switch m := msg.(type) {
	case *wamp.Error:
		return string(m.Error)
	case *wamp.Abort:
		return string(m.Reason)
	}
	return ""
}

// fixture is a platform with one project, two devices and one app
// installed on both in DEV.
type fixture struct {
	p      *Platform
	pr     *Project
	d1, d2 *Device
	app    *App
	in1    *Installation
	in2    *Installation
}

func newFixture(t *testing.T, opts ...Option) *fixture {
	t.Helper()
	p := New(t, opts...)
	pr := p.AddProject("plant", Key(2))
	d1 := pr.AddDevice("dev-1", Key(42), Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"))
	d2 := pr.AddDevice("dev-2", Key(43))
	app := p.AddApp("interop", "", Key(26))
	return &fixture{p: p, pr: pr, d1: d1, d2: d2, app: app, in1: p.Install(d1, app, Dev), in2: p.Install(d2, app, Dev)}
}

// Every platform this package's tests make checks at Close that its
// registry kept every change (an entity changed without being marked
// would be lost at a restart with a data folder).
func init() { auditOnClose = true }
